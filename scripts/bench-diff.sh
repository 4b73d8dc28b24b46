#!/usr/bin/env bash
# Native time and memory of comparing two runs (issue 17): two synthetic HPCToolkit databases of
# CONTEXTS calling contexts each (`hpcscope synth`, seeds 1 and 2, written once under
# target/bench/, never committed), then `hpcscope diff --timings`: what the compare view computes
# (match the trees by call path, sum the default metric into the union tree, order and lay out the
# flame graph) and the per-function table, with the process's resident memory after opening both
# runs and at its peak. Targets: compare < 1 s, peak memory < 2x what the two opened runs hold.
# Prints the machine's load (uptime) too: the machine is shared.
# Usage: scripts/bench-diff.sh [CONTEXTS=1000000] [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
CONTEXTS=${1:-1000000}; RUNS=${2:-3}
BIN=target/release/hpcscope
cargo build --release --quiet --bin hpcscope
for seed in 1 2; do
  dir=target/bench/diff-$CONTEXTS-$seed.d
  [ -f "$dir/meta.db" ] || "$BIN" synth --contexts "$CONTEXTS" --seed "$seed" "$dir" >/dev/null
done
A=target/bench/diff-$CONTEXTS-1.d
B=target/bench/diff-$CONTEXTS-2.d
echo "load: $(uptime | sed 's/.*load average/load average/')"
best=""
for i in $(seq "$RUNS"); do
  out=$("$BIN" diff --timings "$A" "$B")
  echo "$out"
  ms=$(echo "$out" | sed -n 's/^compare_ms \([0-9.]*\).*/\1/p')
  ratio=$(echo "$out" | sed -n 's/.* ratio \([0-9.]*\)$/\1/p')
  if [ -z "$best" ] || [ "$(echo "$ms < $best" | bc -l)" = 1 ]; then best=$ms; best_ratio=$ratio; fi
done
echo "load: $(uptime | sed 's/.*load average/load average/')"
printf 'best compare %.1f ms (target < 1000 ms: %s)\n' "$best" "$(echo "$best < 1000" | bc -l | sed 's/1/met/;s/0/MISSED/')"
printf 'peak memory %.2fx the two opened runs (target < 2x: %s)\n' "$best_ratio" \
  "$(echo "$best_ratio < 2" | bc -l | sed 's/1/met/;s/0/MISSED/')"
