#!/bin/sh
# The whole test suite, from a fresh Debian 12 machine: installs what it needs, builds the core,
# CLI and probe, runs the C tests (accuracy against ../shared/groundtruth included), the sanitizer
# build, the fuzzers (bounded), the Python package in a fresh venv, then the WASM build and the browser tests.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
sh scripts/deps.sh all
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
echo "== accuracy against measured runs =="
./build/cli/vramplan calibrate ../shared/groundtruth/calibration.jsonl | tail -1 || true
echo "== C tests =="
ctest --test-dir build --output-on-failure -j"$(nproc)"
if [ -f tests/python/run.sh ]; then
  echo "== Python package (fresh venv, offline pip install, pytest) =="
  sh tests/python/run.sh
fi
if [ -f scripts/test-core.sh ]; then
  echo "== sanitizers, fuzzers, benchmark =="
  sh scripts/test-core.sh
fi
if [ -f tests/web/run.sh ]; then
  echo "== WASM and browser tests =="
  bash tests/web/run.sh
fi
echo "== all tests passed in $(( $(date +%s) - start )) s =="
