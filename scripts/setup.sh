#!/usr/bin/env bash
# Installs what building and testing hpcscope needs, skipping whatever is already there, so it is
# fast on a ready machine: the wasm32 target, clippy, wasm-bindgen-cli at the version Cargo.lock pins,
# wasm-pack, Debian's Chromium + chromedriver (headless tests), Debian's nginx-light (the e2e test
# against a real web server: tests/e2e/nginx.test.mjs starts its own), and the npm packages of
# package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*"; }

command -v cargo >/dev/null || { echo "[setup] cargo not found: install Rust from https://rustup.rs" >&2; exit 1; }
command -v node >/dev/null || { echo "[setup] node not found: install Node.js 18 or newer" >&2; exit 1; }

if command -v rustup >/dev/null; then
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    say "adding Rust target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  # npm test lints with clippy (a minimal rustup profile leaves it out).
  if ! cargo clippy --version >/dev/null 2>&1; then
    say "adding the clippy component"
    rustup component add clippy
  fi
fi

# wasm-bindgen-cli must match the wasm-bindgen crate exactly (the generated glue is versioned).
want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (found: ${have:-none})"
  cargo install wasm-bindgen-cli --version "$want"
fi

# wasm-pack drives the release build (scripts/build.sh); it finds the wasm-bindgen above on PATH
# and, with wasm-opt off in Cargo.toml, downloads nothing. Its install compiles 185 crates (about
# 200 s of CPU); NO_WASM_PACK=1 skips it, and build.sh then runs cargo + wasm-bindgen itself, with
# the same output.
if [ -z "${NO_WASM_PACK:-}" ] && ! command -v wasm-pack >/dev/null; then
  say "installing wasm-pack"
  cargo install wasm-pack --locked
fi

if [ ! -x /usr/bin/chromium ]; then
  say "installing chromium and chromium-driver"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends chromium chromium-driver
fi

if [ ! -x /usr/sbin/nginx ]; then
  say "installing nginx-light"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  # Installing only: the e2e test starts nginx itself on a loopback port; the package's own
  # service (port 80) is not needed and may fail to start without an init system.
  # Not fatal: without nginx (no network, no sudo) only tests/e2e/nginx.test.mjs skips, saying so.
  if ! { $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends nginx-light; }; then
    say "nginx-light not installed: tests/e2e/nginx.test.mjs will skip"
  fi
fi

if [ ! -d node_modules/playwright-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages"
  npm install --no-audit --no-fund
fi
