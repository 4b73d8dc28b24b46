#!/usr/bin/env bash
# Runs every cargo-fuzz target for a time budget each and prints executions per target.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET=60] [TARGET...]
# Seeds come from ../shared/corpus (real files of the structure each target fuzzes), the writer's
# example database and fuzz/regressions/; crashes are copied to fuzz/regressions/<target>/ so the
# regression test (tests/fuzz_regressions.rs) replays them forever after.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-60}; shift || true
corpus=../shared/corpus
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
rustup toolchain list | grep -q nightly || rustup toolchain install nightly --profile minimal
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(ls fuzz/fuzz_targets | sed 's/\.rs$//'))

seeds_for() { # target -> seed file globs
  case $1 in
    hpctoolkit_meta|hpctoolkit_draft_meta) echo "$corpus/hpctoolkit/v4*/*/meta.db" ;;
    hpctoolkit_profile|hpctoolkit_draft_profile) echo "$corpus/hpctoolkit/v4*/*/profile.db" ;;
    hpctoolkit_cct) echo "$corpus/hpctoolkit/v4*/*/cct.db" ;;
    hpctoolkit_trace|hpctoolkit_draft_trace) echo "$corpus/hpctoolkit/v4*/*/trace.db" ;;
    prof2_profile) echo "$corpus/hpctoolkit/prof2/*/profile.db" ;;
    prof2_cct) echo "$corpus/hpctoolkit/prof2/*/cct.db" ;;
    prof2_trace) echo "$corpus/hpctoolkit/prof2/*/trace.db" ;;
    prof2_xml) echo "$corpus/hpctoolkit/prof2/*/experiment.xml" ;;
    hpctoolkit_xml_experiment) echo "$corpus/hpctoolkit/xml/*/experiment.xml" ;;
    hpctoolkit_xml_metric_db) echo "$corpus/hpctoolkit/xml/*/*.metric-db" ;;
    hpctoolkit_xml_mdb) echo "$corpus/hpctoolkit/xml/*/*.mdb" ;;
    hpctoolkit_xml_mt) echo "$corpus/hpctoolkit/xml/*/experiment.mt" ;;
    hpctoolkit_xml_hpctrace) echo "$corpus/hpctoolkit/xml/*/*.hpctrace" ;;
    # Every taxonomy of the corpus and the two METRICS.yaml.ex specification examples.
    hpctoolkit_metrics_yaml) echo "$corpus/hpctoolkit/v4/*/metrics/*" ;;
    hpcrun_profile) echo "$corpus/hpcrun/*/*.hpcrun" ;;
    hpcrun_trace) echo "$corpus/hpcrun/*/*.hpctrace" ;;
    # Only structure files under 64 KB: every execution parses its whole input, and the 0.2-0.9 MB
    # library files (libc, libcuda) held it near 20 execs/s; the small ones have every element.
    hpcrun_hpcstruct) find $corpus/hpcrun/*/structs -name '*.hpcstruct' -size -64k 2>/dev/null ;;
    uftrace_info) echo "$corpus/uftrace/*/uftrace.data/info" ;;
    uftrace_task) echo "$corpus/uftrace/*/uftrace.data/task.txt" ;;
    uftrace_map) echo "$corpus/uftrace/*/uftrace.data/sid-*.map" ;;
    uftrace_sym) echo "$corpus/uftrace/recorded-*/uftrace.data/*.sym" ;;
    uftrace_dbg) echo "$corpus/uftrace/recorded-*/uftrace.data/*.dbg" ;;
    uftrace_dat) echo "$corpus/uftrace/*/uftrace.data/[0-9]*.dat" ;;
    uftrace_perf) echo "$corpus/uftrace/*/uftrace.data/perf-cpu*.dat" ;;
    *) echo "" ;;
  esac
}

(cd fuzz && cargo +nightly fuzz build -O 2>&1 | tail -3) || { echo "fuzz build failed"; exit 1; }
summary=()
for t in "${targets[@]}"; do
  dir=target/fuzz-corpus/$t
  mkdir -p "$dir" "fuzz/regressions/$t"
  for f in $(seeds_for "$t"); do [ -f "$f" ] && cp -f "$f" "$dir/$(echo "$f" | md5sum | cut -c1-16)"; done
  # Formats without public samples: seed from the project's own fixture writers.
  case $t in
    dcpi) cargo run -q --bin hpcscope -- fixture dcpi "$dir/fixture.dcpi" >/dev/null ;;
    prof2_meta) rm -rf target/prof2-fixture && cargo run -q --bin hpcscope -- fixture prof2 target/prof2-fixture >/dev/null \
                  && cp -f target/prof2-fixture/meta.db "$dir/fixture-meta.db" ;;
  esac
  cp -f fuzz/regressions/$t/* "$dir/" 2>/dev/null || true
  [ -n "$(ls -A "$dir")" ] || printf 'seed' > "$dir/empty-seed"
  log=target/fuzz-logs/$t.log; rm -rf target/fuzz-artifacts/$t; mkdir -p target/fuzz-logs target/fuzz-artifacts/$t
  set +e
  (cd fuzz && cargo +nightly fuzz run -O "$t" "../$dir" -- -max_total_time="$budget" -timeout=10 \
      -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=1048576 -print_final_stats=1 \
      -artifact_prefix="../target/fuzz-artifacts/$t/") > "$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  found=$(ls target/fuzz-artifacts/$t 2>/dev/null | wc -l)
  if [ "$found" -gt 0 ]; then cp -n target/fuzz-artifacts/$t/* "fuzz/regressions/$t/"; fi
  line=$(printf '%-26s %12s execs  %3s findings  exit %s' "$t" "${runs:-?}" "$found" "$rc")
  echo "$line"; summary+=("$line")
done
echo "== fuzz summary (${budget}s per target)"
printf '%s\n' "${summary[@]}"
