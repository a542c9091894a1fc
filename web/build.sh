#!/usr/bin/env bash
# Build the static site into dist/site/: web/ (HTML, CSS, ES modules) + the WASM core.
# The folder works from any static host; it asks no other origin for anything.
#
#   web/build.sh                 builds the WASM core (wasm/build.sh) and the site
#   VP_SKIP_WASM=1 web/build.sh  reuse build/wasm/ as it is
#   VP_WASM_DIR=DIR              take vramplan.mjs/.wasm from DIR instead of build/wasm/
#
# Byte budget: the whole site must stay within VP_SITE_BUDGET gzip bytes (250 KB).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SITE="$ROOT/dist/site"
WASM_DIR="${VP_WASM_DIR:-$ROOT/build/wasm}"
BUDGET="${VP_SITE_BUDGET:-256000}"

if [ "${VP_SKIP_WASM:-0}" != 1 ] && [ -z "${VP_WASM_DIR:-}" ]; then
  bash "$ROOT/wasm/build.sh"
fi
for f in vramplan.mjs vramplan.wasm; do
  [ -f "$WASM_DIR/$f" ] || { echo "web/build.sh: $WASM_DIR/$f missing (run wasm/build.sh)" >&2; exit 1; }
done

rm -rf "$SITE"
mkdir -p "$SITE"
cp "$ROOT"/web/*.html "$ROOT"/web/*.css "$ROOT"/web/*.js "$SITE"/
cp "$WASM_DIR/vramplan.mjs" "$WASM_DIR/vramplan.wasm" "$SITE"/

# Size report and budget (gzip -9 of each file, as a static host would serve it).
total=0
while IFS= read -r -d '' f; do
  gz=$(gzip -9 -c "$f" | wc -c)
  total=$((total + gz))
  printf '  %-22s %8d B  %7d B gzip\n' "${f#"$SITE"/}" "$(wc -c <"$f")" "$gz"
done < <(find "$SITE" -type f -print0 | sort -z)
printf 'web/build.sh: dist/site is %d B gzip (budget %d B)\n' "$total" "$BUDGET"
if [ "$total" -gt "$BUDGET" ]; then
  echo "web/build.sh: over the byte budget" >&2
  exit 1
fi
