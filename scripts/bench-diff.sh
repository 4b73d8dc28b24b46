#!/usr/bin/env bash
# Native time and memory of comparing two runs (issue 17): two synthetic HPCToolkit databases of
# CONTEXTS calling contexts each (`hpcscope synth`, seeds 1 and 2, written once under
# target/bench/, never committed), then `hpcscope diff --timings`: what the compare view computes
# (match the trees by call path, sum the default metric into the union tree, order and lay out the
# flame graph), the top-down delta table the view opens (the union tree as a dataset, sorted by
# delta) and the per-function table, with the process's resident memory after opening both runs
# and at its peak. Targets: compare < 1 s, peak memory < 2x what the two opened runs hold.
# Prints the machine's load (uptime) too: the machine is shared, so CPU time (from /proc) is the
# number to compare; wall time grows with the load.
# With BASE_REV (a git revision), the binary built at that revision runs too, alternating with the
# working tree's in the same loop, so old and new are measured side by side under the same load.
# Usage: [BASE_REV=main] scripts/bench-diff.sh [CONTEXTS=1000000] [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
CONTEXTS=${1:-1000000}; RUNS=${2:-3}
BIN=target/release/hpcscope
cargo build --release --quiet --bin hpcscope
bins=("new=$BIN")
if [ -n "${BASE_REV:-}" ]; then
  rev=$(git rev-parse --short "$BASE_REV")
  # Shared with scripts/check-outputs.sh: a base binary built once per revision.
  cache=${CHECK_CACHE:-target/check-outputs}
  old=$cache/bin-$rev
  if [ ! -x "$old" ]; then
    mkdir -p "$cache"
    src=target/bench/src-$rev
    rm -rf "$src"
    git worktree add --detach "$src" "$rev" >/dev/null
    CARGO_TARGET_DIR=target/check-outputs/target-base cargo build --release --quiet \
      --manifest-path "$src/Cargo.toml" --bin hpcscope
    cp target/check-outputs/target-base/release/hpcscope "$old"
    git worktree remove --force "$src"
  fi
  bins=("old=$old" "${bins[@]}")
fi
for seed in 1 2; do
  dir=target/bench/diff-$CONTEXTS-$seed.d
  [ -f "$dir/meta.db" ] || "$BIN" synth --contexts "$CONTEXTS" --seed "$seed" "$dir" >/dev/null
done
A=target/bench/diff-$CONTEXTS-1.d
B=target/bench/diff-$CONTEXTS-2.d
echo "load: $(uptime | sed 's/.*load average/load average/')"
declare -A best best_cpu best_ratio fn_cpu table_cpu
for i in $(seq "$RUNS"); do
  for entry in "${bins[@]}"; do
    label=${entry%%=*}; bin=${entry#*=}
    out=$("$bin" diff --timings "$A" "$B")
    echo "$out" | sed "s/^/$label  /"
    ms=$(echo "$out" | sed -n 's/^compare_ms \([0-9.]*\).*/\1/p')
    cpu=$(echo "$out" | sed -n 's/^compare_ms [0-9.]* cpu \([0-9]*\).*/\1/p')
    fcpu=$(echo "$out" | sed -n 's/^functions_ms [0-9.]* cpu \([0-9]*\).*/\1/p')
    tcpu=$(echo "$out" | sed -n 's/^table_ms [0-9.]* cpu \([0-9]*\).*/\1/p')
    ratio=$(echo "$out" | sed -n 's/.* ratio \([0-9.]*\)$/\1/p')
    if [ -z "${best[$label]:-}" ] || [ "$(echo "$cpu < ${best_cpu[$label]}" | bc -l)" = 1 ]; then
      best[$label]=$ms; best_cpu[$label]=$cpu; best_ratio[$label]=$ratio; fn_cpu[$label]=$fcpu; table_cpu[$label]=${tcpu:-n/a}
    fi
  done
done
echo "load: $(uptime | sed 's/.*load average/load average/')"
for entry in "${bins[@]}"; do
  label=${entry%%=*}
  printf '%s: best compare cpu %s ms, wall %.1f ms (target < 1000 ms: cpu %s); delta table cpu %s ms; per-function table cpu %s ms\n' \
    "$label" "${best_cpu[$label]}" "${best[$label]}" \
    "$(echo "${best_cpu[$label]} < 1000" | bc -l | sed 's/1/met/;s/0/MISSED/')" "${table_cpu[$label]}" "${fn_cpu[$label]}"
  printf '%s: peak memory %.2fx the two opened runs (target < 2x: %s)\n' "$label" "${best_ratio[$label]}" \
    "$(echo "${best_ratio[$label]} < 2" | bc -l | sed 's/1/met/;s/0/MISSED/')"
done
