#!/usr/bin/env bash
# Checks that a change leaves what the CLI prints unchanged: builds `hpcscope` at a base revision
# (the first argument, default HEAD) and at the working tree, runs `summary`,
# `dump --json`, `report --json` (uftrace), `report --json --task` and every `export` format on
# every corpus dataset and on the project's generated fixtures, and `diff --json`, `diff --format
# folded` and `diff --format csv` of each input with itself and with the next input (issue 17),
# and compares the outputs byte for byte.
#   bash scripts/check-outputs.sh [BASE_REV]      (default BASE_REV: HEAD; CHECK_CACHE=DIR keeps base builds)
# Prints one line per difference and a count; exits 1 when anything differs.
set -uo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD}
work=${CHECK_DIR:-target/check-outputs}
# Base binaries are kept by revision (CHECK_CACHE lets several checkouts share them).
cache=${CHECK_CACHE:-$work}
corpus=../shared/corpus
mkdir -p "$work" "$cache"

build_at() { # rev -> path of the binary
  local rev=$1 dir="$work/src-$1"
  if [ ! -x "$cache/bin-$rev" ]; then
    rm -rf "$dir"
    git worktree add --detach "$dir" "$rev" >/dev/null 2>&1 || { echo "cannot check out $rev" >&2; exit 2; }
    CARGO_TARGET_DIR="$work/target-base" cargo build --release --quiet --manifest-path "$dir/Cargo.toml" --bin hpcscope >&2 || exit 2
    cp "$work/target-base/release/hpcscope" "$cache/bin-$rev"
    git worktree remove --force "$dir"
  fi
  echo "$cache/bin-$rev"
}

base_rev=$(git rev-parse --short "$base")
old=$(build_at "$base_rev")
cargo build --release --quiet --bin hpcscope || exit 2
new=target/release/hpcscope

# Inputs: every corpus dataset, plus fixtures both binaries generate (checked equal first).
inputs=()
if [ -d "$corpus" ]; then
  while IFS= read -r d; do inputs+=("$d"); done < <(
    find "$corpus/hpctoolkit" -mindepth 2 -maxdepth 2 -type d ! -path '*/golden*' | sort
    find "$corpus/hpcrun" -mindepth 1 -maxdepth 1 -type d | sort
    find "$corpus/uftrace" -mindepth 2 -maxdepth 2 -type d -name uftrace.data | sort
    find "$corpus/uftrace" -mindepth 1 -maxdepth 1 -type d -name 'public-*' | sort)
else
  echo "(../shared/corpus absent: only generated fixtures are compared)"
fi
gen="$work/generated"
rm -rf "$gen"; mkdir -p "$gen/old" "$gen/new"
for side in old new; do
  bin=$([ $side = old ] && echo "$old" || echo "$new")
  "$bin" fixture dcpi "$gen/$side/profile.dcpi" >/dev/null 2>&1
  "$bin" fixture prof2 "$gen/$side/prof2.d" >/dev/null 2>&1
  "$bin" fixture uftrace-deep --depth 40 "$gen/$side/deep/uftrace.data" >/dev/null 2>&1
  "$bin" synth --contexts 2000 --ranks 3 --seed 7 "$gen/$side/synth.d" >/dev/null 2>&1 \
    || "$bin" synth "$gen/$side/synth.d" >/dev/null 2>&1
done
diffs=0
if ! diff -r "$gen/old" "$gen/new" >/dev/null; then
  echo "DIFF generated fixtures differ between $base_rev and the working tree"; diffs=$((diffs+1))
fi
for f in "$gen/new"/*; do inputs+=("$f"); done

runs=0
compare() { # label, command args...
  local label=$1; shift
  local a b
  a=$("$old" "$@" 2>&1; echo "exit $?")
  b=$("$new" "$@" 2>&1; echo "exit $?")
  runs=$((runs+1))
  if [ "$a" != "$b" ]; then
    diffs=$((diffs+1))
    echo "DIFF $label: $*"
    diff <(echo "$a") <(echo "$b") | head -5
  fi
}
for k in "${!inputs[@]}"; do
  d=${inputs[$k]}
  name=${d#"$corpus/"}
  compare "$name" summary "$d"
  compare "$name" dump --json "$d"
  compare "$name" report --json "$d"
  compare "$name" report --json --task "$d"
  for fmt in speedscope chrome folded csv; do compare "$name" export --format "$fmt" -o /dev/stdout "$d"; done
  # Comparisons: the input against itself, and against the next input (often another run of the
  # same program, or another format: an error message is an output too).
  next=${inputs[$(( (k + 1) % ${#inputs[@]} ))]}
  for other in "$d" "$next"; do
    compare "$name" diff --json "$d" "$other"
    for fmt in folded csv; do compare "$name" diff --format "$fmt" "$d" "$other"; done
  done
done
echo "check-outputs: $runs commands on ${#inputs[@]} inputs, base $base_rev vs working tree: $diffs differ"
[ $diffs -eq 0 ]
