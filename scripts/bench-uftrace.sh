#!/bin/sh
# Benchmark: native `hpcscope report` vs `uftrace report` on the same uftrace recording of at
# least 25 million records, generated on the fly (never committed) from a C program with a hot
# small function. Prints both times and the speed-up. Needs uftrace, gcc and a release build.
#   usage: scripts/bench-uftrace.sh [ITERATIONS]   (default 2600000 -> 26 million records)
set -eu
N=${1:-2600000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${BENCH_DIR:-/tmp/hpcscope-bench-uftrace}
command -v uftrace >/dev/null || { echo "uftrace not installed (apt-get install uftrace)"; exit 1; }
command -v gcc >/dev/null || { echo "gcc not installed"; exit 1; }
command -v bc >/dev/null && [ -x /usr/bin/time ] || { echo "needs bc and /usr/bin/time"; exit 1; }
mkdir -p "$WORK"
cp "$ROOT/tests/programs/hot.c" "$WORK/hot.c"
gcc -pg -O0 -g -o "$WORK/hot" "$WORK/hot.c"
if [ ! -f "$WORK/hot.data/info" ] || [ "$(cat "$WORK/n" 2>/dev/null)" != "$N" ]; then
    rm -rf "$WORK/hot.data"
    # Big buffers so the recorder keeps up and nothing is lost.
    (cd "$WORK" && uftrace record -d hot.data --buffer=4m ./hot "$N" >/dev/null)
    echo "$N" > "$WORK/n"
fi
(cd "$ROOT" && cargo build --release --bin hpcscope >/dev/null 2>&1)
BIN="$ROOT/target/release/hpcscope"
BYTES=$(cat "$WORK"/hot.data/*.dat | wc -c)
echo "recording: $WORK/hot.data, $((BYTES / 16)) records (approx.), $((BYTES / 1048576)) MB of .dat"
# Warm the page cache so both read from memory.
cat "$WORK"/hot.data/*.dat > /dev/null
# Wall-clock and CPU (user + sys) seconds of a command, best of 3 runs each (the machine may be
# shared: the best run is the least disturbed one).
measure() {
    best_wall=""; best_cpu=""
    for _ in 1 2 3; do
        /usr/bin/time -f "%e %U %S" -o "$WORK/time.txt" "$@" > "$WORK/out.txt"
        set -- "$@"
        w=$(awk '{print $1}' "$WORK/time.txt"); c=$(awk '{print $2 + $3}' "$WORK/time.txt")
        if [ -z "$best_wall" ] || [ "$(echo "$w < $best_wall" | bc -l)" = 1 ]; then best_wall=$w; fi
        if [ -z "$best_cpu" ] || [ "$(echo "$c < $best_cpu" | bc -l)" = 1 ]; then best_cpu=$c; fi
    done
}
measure uftrace --no-pager report -d "$WORK/hot.data"; UW=$best_wall; UC=$best_cpu
cp "$WORK/out.txt" "$WORK/uftrace-report.txt"
measure "$BIN" report "$WORK/hot.data"; HW=$best_wall; HC=$best_cpu
cp "$WORK/out.txt" "$WORK/hpcscope-report.txt"
printf 'uftrace report : %6.2f s wall  %6.2f s cpu\n' "$UW" "$UC"
printf 'hpcscope report: %6.2f s wall  %6.2f s cpu\n' "$HW" "$HC"
printf 'speed-up       : %6.1fx wall  %6.1fx cpu\n' "$(echo "$UW / $HW" | bc -l)" "$(echo "$UC / $HC" | bc -l)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
if diff -q "$WORK/uftrace-report.txt" "$WORK/hpcscope-report.txt" >/dev/null; then
    echo "tables: identical"
else
    echo "tables: DIFFERENT"; diff "$WORK/uftrace-report.txt" "$WORK/hpcscope-report.txt" | head -20
fi
