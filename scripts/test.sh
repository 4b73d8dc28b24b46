#!/usr/bin/env bash
# `npm test`: sets up what is missing, then runs every suite and ends with one summary line.
#   1. native `cargo test` (unit, corpus conformance, robustness), then clippy on both targets (-D warnings)
#   2. wasm-bindgen tests in headless Chromium (the engine as the browser runs it, in a Worker)
#   3. JavaScript unit tests in Node (tests/js: the trace view's state, colours, multi-range parts)
#   4. the web build, then end-to-end tests (playwright-core + Debian Chromium, node --test), among
#      them databases opened by URL over scripts/serve.js (multi-range), scripts/objstore-serve.js
#      (one range per request, faults) and a real nginx (skipped, saying so, where not installed)
# Corpus-based tests skip, saying so, when ../shared/corpus is absent; the end-to-end behaviour
# tests then run on datasets the project generates (tests/e2e/generated.mjs), and only the
# real-corpus conformance comparisons skip: the summary counts them.
set -uo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh || { echo "setup failed"; exit 1; }

mkdir -p target/test-logs target/tmp
export TMPDIR="$PWD/target/tmp"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"

total_pass=0
total_fail=0
e2e_skip=0
E2E_MAX_SKIPPED=5
# The test against a real nginx skips (saying so) where setup could not install it.
if [ ! -x /usr/sbin/nginx ] && [ ! -x /usr/bin/nginx ]; then
  echo "nginx not installed: tests/e2e/nginx.test.mjs will skip (one more e2e skip allowed)"
  E2E_MAX_SKIPPED=$((E2E_MAX_SKIPPED + 1))
fi
suites=()
failed_suites=()

# Runs one suite with its output teed to a log; counts passed/failed tests from the log.
run_suite() {
  local name=$1 kind=$2
  shift 2
  local log="target/test-logs/$name.log"
  echo
  echo "=== $name: $*"
  local start=$SECONDS
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local p=0 f=0 k=0
  if [ "$kind" = check ]; then
    # A lint run is one check: it passes when the command does.
    if [ "$rc" -eq 0 ]; then p=1; fi
  elif [ "$kind" = cargo ]; then
    p=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s+=$4} END {print s+0}')
    f=$(grep -Eo '[0-9]+ failed' "$log" | awk '{s+=$1} END {print s+0}')
  else
    p=$(grep -E '^# pass [0-9]+' "$log" | awk '{s+=$3} END {print s+0}')
    f=$(grep -E '^# fail [0-9]+' "$log" | awk '{s+=$3} END {print s+0}')
    k=$(grep -E '^# skipped [0-9]+' "$log" | awk '{s+=$3} END {print s+0}')
  fi
  # Only the real-corpus conformance comparisons (and the nginx test without nginx) may skip
  # end-to-end (issue 14): more is a failure.
  if [ "$name" = e2e ]; then
    e2e_skip=$k
    if [ "$k" -gt "$E2E_MAX_SKIPPED" ]; then
      echo "e2e: $k tests skipped, at most $E2E_MAX_SKIPPED may"
      rc=1
    fi
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  local status=ok
  if [ "$rc" -ne 0 ]; then status=FAILED; failed_suites+=("$name"); fi
  local skipped=""
  if [ "$k" -ne 0 ]; then skipped=", $k skipped"; fi
  suites+=("$(printf '%-10s %-6s %4d passed, %d failed%s  (%ds)' "$name" "$status" "$p" "$f" "$skipped" $((SECONDS - start)))")
}

run_suite native cargo cargo test
# clippy on both targets, every warning an error (issue 14): library, binaries, tests.
run_suite clippy check cargo clippy --all-targets -- -D warnings
run_suite clippy-wasm check cargo clippy --all-targets --target wasm32-unknown-unknown -- -D warnings
run_suite wasm cargo cargo test --profile wasm-test --target wasm32-unknown-unknown --test wasm_session
run_suite js-unit node node --test tests/js/
run_suite build build bash scripts/build.sh
run_suite e2e node node --test --test-concurrency=1 tests/e2e/

echo
echo "=== summary"
for s in "${suites[@]}"; do echo "  $s"; done
if [ ! -d ../shared/corpus ]; then
  echo "  (../shared/corpus absent: corpus-based tests were skipped; the end-to-end tests ran on generated"
  echo "   datasets; $e2e_skip e2e tests skipped: the real-corpus conformance comparisons)"
fi
# The plain count line comes last: CI reads the closing line.
if [ ${#failed_suites[@]} -ne 0 ]; then
  echo "FAILED suites: ${failed_suites[*]}"
  echo "$total_pass passed, $total_fail failed"
  exit 1
fi
echo "$total_pass passed, $total_fail failed"
