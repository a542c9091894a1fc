#!/bin/sh
# Install what vramplan needs on a fresh Debian 12 machine (idempotent).
# Usage: scripts/deps.sh [native|web|python|all]   (default all)
set -eu
what="${1:-all}"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
pkgs="build-essential cmake pkg-config libcjson-dev libcmocka-dev"
case "$what" in
  native) ;;
  web|all) pkgs="$pkgs emscripten dpkg-dev" ;;
esac
case "$what" in
  all) pkgs="$pkgs clang libclang-rt-14-dev chromium" ;;
esac
# the Python package (python/) and its tests (tests/python/run.sh): venv, offline pip build, pytest, torch (CPU)
case "$what" in
  python|all) pkgs="$pkgs python3-venv python3-pytest python3-torch" ;;
esac
command -v node >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "deps: installing$missing"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
fi
if [ "$what" != native ] && [ -f package.json ]; then
  if [ ! -d node_modules/playwright-core ] || [ ! -x node_modules/.bin/esbuild ]; then
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
