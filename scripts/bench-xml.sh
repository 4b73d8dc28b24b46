#!/usr/bin/env bash
# Native load time of an XML-era HPCToolkit database (experiment.xml v2.2 + one .metric-db and one
# .hpctrace per thread) written on the fly by `hpcscope fixture xml` (never committed): opening it
# to a tree with the inclusive and exclusive values of every metric, what the flame graph draws.
# Prints the best and median of N loads, the peak RSS and its ratio to the database's size, and
# whether they meet the targets (< 1 s, memory < 3x the file size).
# Usage: scripts/bench-xml.sh [SIZE_BYTES=100000000] [THREADS=8] [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${1:-100000000}; THREADS=${2:-8}; RUNS=${3:-3}
BIN=target/release/hpcscope
DIR=target/bench/xml-$SIZE-$THREADS
cargo build --release --quiet --bin hpcscope
[ -f "$DIR/experiment.xml" ] || "$BIN" fixture xml --size "$SIZE" --threads "$THREADS" "$DIR"
bytes=$(du -sb "$DIR" | cut -f1)
xml=$(stat -c %s "$DIR/experiment.xml")
out=$( { /usr/bin/time -v "$BIN" load "$DIR" --repeat "$RUNS"; } 2>&1 )
echo "$out" | grep -E 'load_ms|cpu_ms' || true
best=$(echo "$out" | sed -n 's/.*load_ms min \([0-9.]*\).*/\1/p')
rss=$(echo "$out" | sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p')
ratio=$(echo "$rss * 1024 / $bytes" | bc -l)
printf 'database %s bytes (experiment.xml %s bytes), %s threads\n' "$bytes" "$xml" "$THREADS"
printf 'native load best %.1f ms (target < 1000 ms: %s)\n' "$best" "$(echo "$best < 1000" | bc -l | sed 's/1/met/;s/0/MISSED/')"
cpu=$(echo "$out" | sed -n 's/.*cpu_ms_mean \([0-9.]*\).*/\1/p')
printf 'native load CPU %s ms per load (user + system; what a busy shared machine does not inflate)\n' "$cpu"
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'peak RSS %.1f MB = %.2fx the database (target < 3x: %s)\n' "$(echo "$rss / 1024" | bc -l)" "$ratio" \
  "$(echo "$ratio < 3" | bc -l | sed 's/1/met/;s/0/MISSED/')"
