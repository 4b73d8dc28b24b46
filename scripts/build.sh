#!/usr/bin/env bash
# Builds the web viewer: the Rust library for wasm32 (release), its JavaScript glue with
# wasm-bindgen (--target web, into pkg/), wasm-opt -Oz (npm package binaryen, when installed;
# Debian's is too old for the features rustc emits), then dist/ = index.html + www/ + pkg/: a
# folder any static server can host with no network access. Prints its size, raw and gzipped.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --lib --target wasm32-unknown-unknown
rm -rf pkg
wasm-bindgen --target web --no-typescript --out-dir pkg \
  target/wasm32-unknown-unknown/release/hpcscope.wasm
WASM_OPT=node_modules/.bin/wasm-opt
if [ -x "$WASM_OPT" ] && [ "${NO_WASM_OPT:-}" = "" ]; then
  before=$(wc -c < pkg/hpcscope_bg.wasm)
  "$WASM_OPT" -Oz --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int \
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
cp -r pkg dist/pkg
rm -f dist/www/README.md
rm -f dist/pkg/package.json dist/pkg/.gitignore
raw=$(find dist -type f -exec cat {} + | wc -c)
gz=0
for f in $(find dist -type f); do gz=$((gz + $(gzip -9 -c "$f" | wc -c))); done
echo "[build] dist/ ready: $(find dist -type f | wc -l) files, $raw bytes, $gz bytes gzipped (each file gzip -9); wasm $(wc -c < dist/pkg/hpcscope_bg.wasm) bytes"
