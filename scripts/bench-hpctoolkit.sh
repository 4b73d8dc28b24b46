#!/usr/bin/env bash
# Native HPCToolkit v4 load time (to a tree with inclusive and exclusive values of every metric)
# against hatchet's reader (GraphFrame.from_hpctoolkit_latest), side by side on the largest
# corpus database and on a synthetic database of >= 1 GiB written on the fly (never committed);
# prints both times, their ratio, and the native peak RSS (/usr/bin/time -v).
# Usage: scripts/bench-hpctoolkit.sh [SYNTH_SIZE]   (default 1.25G; SKIP_SYNTH=1 to skip it)
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE="${1:-1.25G}"
CORPUS=../shared/corpus/hpctoolkit/v4
BIN=target/release/hpcscope
SYNTH="${SYNTH_DIR:-target/bench/synth-$SIZE}"

cargo build --release --quiet
python3 -c 'import hatchet' 2>/dev/null || pip install --quiet llnl-hatchet

hatchet_ms() { # DIR RUNS -> "min median cpu_mean rows": ms of in-process loads (import excluded)
  python3 - "$1" "$2" <<'PY' 2>/dev/null
import sys, time, statistics, warnings
warnings.filterwarnings("ignore")
import hatchet as ht
d, n = sys.argv[1], int(sys.argv[2])
ts = []
c0 = time.process_time()
for _ in range(n):
    t = time.perf_counter()
    gf = ht.GraphFrame.from_hpctoolkit_latest(d)
    ts.append((time.perf_counter() - t) * 1e3)
cpu = (time.process_time() - c0) * 1e3 / n
print(f"{min(ts):.3f} {statistics.median(ts):.3f} {cpu:.3f} {len(gf.dataframe)}")
PY
}

native() { # DIR RUNS -> "min_ms median_ms cpu_mean_ms peak_rss_kb"
  local out
  out=$( { /usr/bin/time -v "$BIN" load "$1" --repeat "$2" ; } 2>&1 )
  local mn md cpu rss
  cpu=$(echo "$out" | sed -n 's/.*cpu_ms_mean \([0-9.n/a]*\).*/\1/p')
  mn=$(echo "$out" | sed -n 's/.*load_ms min \([0-9.]*\).*/\1/p')
  md=$(echo "$out" | sed -n 's/.* median \([0-9.]*\).*/\1/p')
  rss=$(echo "$out" | sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p')
  echo "$mn $md $cpu $rss"
}

# Both sides are timed the same way: N loads in one process; wall-clock best and median, and
# the mean CPU time per load (user + system), which a busy shared machine does not inflate.
report() { # NAME DIR NATIVE_RUNS HATCHET_RUNS
  local name=$1 dir=$2 bytes nmin nmed ncpu rss hmin hmed hcpu rows
  bytes=$(du -sb "$dir" | cut -f1)
  read -r nmin nmed ncpu rss < <(native "$dir" "$3")
  read -r hmin hmed hcpu rows < <(hatchet_ms "$dir" "$4")
  printf '%s (%s bytes)\n' "$name" "$bytes"
  printf '  native  wall best %10.3f ms  median %10.3f ms  cpu mean %10.3f ms  peak RSS %7.1f MB\n' "$nmin" "$nmed" "$ncpu" "$(echo "$rss / 1024" | bc -l)"
  printf '  hatchet wall best %10.3f ms  median %10.3f ms  cpu mean %10.3f ms  (%s rows)\n' "$hmin" "$hmed" "$hcpu" "$rows"
  printf '  speedup wall best/best %6.1fx  median/median %6.1fx  cpu mean %6.1fx\n' \
    "$(echo "$hmin / $nmin" | bc -l)" "$(echo "$hmed / $nmed" | bc -l)" "$(echo "$hcpu / $ncpu" | bc -l)"
}

if [ -d "$CORPUS" ]; then
  largest=$(du -sb "$CORPUS"/* | sort -n | tail -1 | cut -f2)
  report "$(basename "$largest")" "$largest" 2000 20
else
  echo "skipping corpus: $CORPUS absent"
fi

if [ "${SKIP_SYNTH:-0}" != 1 ]; then
  if [ ! -f "$SYNTH/trace.db" ]; then
    rm -rf "$SYNTH"
    "$BIN" synth --size "$SIZE" "$SYNTH" | tail -1
  fi
  report "synthetic $SIZE" "$SYNTH" 200 10
fi
