#!/usr/bin/env bash
# Builds the web viewer: the Rust library for wasm32 (release), its JavaScript glue with
# wasm-bindgen (--target web, into pkg/), then dist/ = index.html + www/ + pkg/.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --lib --target wasm32-unknown-unknown
rm -rf pkg
wasm-bindgen --target web --no-typescript --out-dir pkg \
  target/wasm32-unknown-unknown/release/hpcscope.wasm

rm -rf dist
mkdir -p dist
cp index.html dist/
cp -r www dist/www
cp -r pkg dist/pkg
rm -f dist/www/README.md
echo "[build] dist/ ready ($(du -sh dist | cut -f1); wasm $(du -h pkg/hpcscope_bg.wasm | cut -f1))"
