#!/usr/bin/env bash
# Web tests: builds the WASM core and the site, then runs
#   0. tests/web/unit.test.mjs  share links, plan building, instances, plan files (pure modules)
#   1. tests/web/wasm.test.mjs  the WASM build in Node, byte-identical to the native CLI
#      tests/web/form.test.mjs  examples through the form and every suggestion's "Apply", against the core
#   2. tests/web/e2e.test.mjs   the page in headless Chromium (playwright-core)
#      tests/web/page.test.mjs  layout, messages, probe files, state (issue 10)
#      tests/web/edge.test.mjs  fit at the edge: largest values, charts, recommend (issue 9)
#   3. tests/web/bench.mjs      size and speed figures (printed, not asserted)
# Needs: emcc (emscripten), chromium, node >= 20, npm; the native CLI at build/cli/vramplan
# for the byte-identical checks (skipped with a message when it is missing).
#   VP_SKIP_BUILD=1  use dist/site as it is      VP_SKIP_BENCH=1  no benchmarks
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "tests/web/run.sh: $tool not found" >&2; exit 1; }
done
if [ ! -f node_modules/playwright-core/package.json ] || [ ! -x node_modules/.bin/esbuild ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ "${VP_SKIP_BUILD:-0}" != 1 ]; then
  bash web/build.sh
fi
[ -x "${VP_CHROMIUM:-/usr/bin/chromium}" ] || { echo "tests/web/run.sh: chromium not found (apt-get install chromium)" >&2; exit 1; }
mkdir -p tests/out/web

status=0
node --test --test-concurrency=1 tests/web/unit.test.mjs tests/web/hub.test.mjs tests/web/wasm.test.mjs tests/web/form.test.mjs tests/web/e2e.test.mjs tests/web/page.test.mjs tests/web/edge.test.mjs tests/web/serve.test.mjs || status=$?
if [ "${VP_SKIP_BENCH:-0}" != 1 ]; then
  node tests/web/bench.mjs || echo "tests/web/run.sh: benchmarks could not run (not a test failure)" >&2
fi
exit "$status"
