#!/usr/bin/env bash
# Builds the web viewer, the npm package and the report template from one release compile:
#   1. wasm-pack build --target web (cargo build --release for wasm32, then the wasm-bindgen-cli that
#      setup.sh installed at the version Cargo.lock pins; nothing downloaded: Cargo.toml turns
#      wasm-pack's own wasm-opt off) into pkg/: hpcscope.js, hpcscope_bg.wasm and their .d.ts.
#      Without wasm-pack, the same two steps run by hand (cargo build + wasm-bindgen): pkg/ comes
#      out byte for byte the same.
#   2. wasm-opt -Oz, run twice (the second run finds about 1 KB gzipped more), from the npm
#      package binaryen, when installed (Debian's is too old for the features rustc emits).
#   3. dist/ = index.html + www/ + pkg/: the standalone viewer, a folder any static server can host
#      with no network access, its scripts and styles minified file by file (scripts/package.mjs
#      --dist; each keeps its name, imports and exports, with a linked source map), so the viewer
#      and every e2e test run the code the package ships; and dist/report-template.html
#      (scripts/build-report.mjs) that `hpcscope report --html` fills.
#   4. dist-npm/: the npm package laid out from dist/ without the maps, pkg/*.d.ts, types/ and a
#      package.json made from the repository's (scripts/package.mjs); `npm pack ./dist-npm` makes
#      the tarball (`npm run package` runs this script and that).
# Prints the time taken and the sizes, raw and gzipped.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

rm -rf pkg
# The engine is compiled for size (opt-level "s"; native builds keep Cargo.toml's 3): the npm
# package must stay under 700 KB gzipped (issue 19). Measured on 2026-11-25: wasm 622 -> 562 KB
# gzipped, the npm tarball 731 -> 671 KB; trace frames took about a third more CPU (495 ms for
# 360), the other engine calls timed the same within noise. WASM_OPT_LEVEL=3 builds for speed.
# Opt-level "z" is not used: smaller again, but slower where it counts (a previous session
# measured z/s CPU time of 1.13x for trace frames to 2.16x for the flame layout of a 300k-context
# tree; scripts/bench-wasm-builds.mjs compares two builds). Cold sorts go through src/sort.rs to
# keep std's sort copies out of the wasm instead.
export CARGO_PROFILE_RELEASE_OPT_LEVEL="${WASM_OPT_LEVEL:-s}"
if command -v wasm-pack >/dev/null && [ "${NO_WASM_PACK:-}" = "" ]; then
  # --no-pack: the package.json is the repository's own (name, exports, types), not a generated one.
  wasm-pack --log-level warn build --target web --release --no-pack --out-dir pkg --out-name hpcscope
else
  echo "[build] without wasm-pack (not installed, or NO_WASM_PACK set): cargo build + wasm-bindgen, the same output"
  cargo build --release --lib --target wasm32-unknown-unknown
  wasm-bindgen --target web --out-dir pkg target/wasm32-unknown-unknown/release/hpcscope.wasm
fi
rm -f pkg/.gitignore pkg/package.json pkg/README.md
WASM_OPT=node_modules/.bin/wasm-opt
if [ -x "$WASM_OPT" ] && [ "${NO_WASM_OPT:-}" = "" ]; then
  before=$(wc -c < pkg/hpcscope_bg.wasm)
  "$WASM_OPT" -Oz -Oz --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    pkg/hpcscope_bg.wasm -o pkg/hpcscope_bg.opt.wasm
  mv pkg/hpcscope_bg.opt.wasm pkg/hpcscope_bg.wasm
  echo "[build] wasm-opt -Oz: $before -> $(wc -c < pkg/hpcscope_bg.wasm) bytes"
else
  echo "[build] wasm-opt not installed (npm install): wasm left as rustc wrote it"
fi

rm -rf dist
mkdir -p dist
cp index.html dist/
cp -r www dist/www
mkdir -p dist/pkg
cp pkg/hpcscope.js pkg/hpcscope_bg.wasm dist/pkg/
rm -f dist/www/README.md
node scripts/package.mjs --dist
raw=$(find dist -type f ! -name '*.map' -exec cat {} + | wc -c)
gz=0
for f in $(find dist -type f ! -name '*.map'); do gz=$((gz + $(gzip -9 -c "$f" | wc -c))); done
echo "[build] dist/ ready: $(find dist -type f ! -name '*.map' | wc -l) files (and their source maps), $raw bytes, $gz bytes gzipped (each file gzip -9); wasm $(wc -c < dist/pkg/hpcscope_bg.wasm) bytes"
node scripts/build-report.mjs dist
node scripts/package.mjs
echo "[build] done in $((SECONDS - start)) s"
