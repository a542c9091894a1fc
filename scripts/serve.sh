#!/bin/sh
# Build the static site (core compiled to WebAssembly) into dist/site/ and serve it on 127.0.0.1.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh web
bash web/build.sh
exec node tests/web/serve.mjs --root dist/site --port "${PORT:-8080}"
