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
mkdir -p "$SITE/cards"
cp "$ROOT"/web/cards/*.js "$SITE/cards"/
cp "$WASM_DIR/vramplan.mjs" "$WASM_DIR/vramplan.wasm" "$SITE"/

# The example plans (examples/*.json, the same files the CLI reads) and their index for the
# page's "Load example" menu: [{"file", "name"}], in file-name order.
# Minify the page's JavaScript and CSS as served (esbuild from package.json: whitespace and syntax only,
# names kept, so stack traces still name our functions). VP_NO_MINIFY=1 serves the sources as they are.
if [ "${VP_NO_MINIFY:-0}" != 1 ]; then
  ESBUILD="$ROOT/node_modules/.bin/esbuild"
  if [ ! -x "$ESBUILD" ]; then
    command -v npm >/dev/null || { echo "web/build.sh: npm not found (scripts/deps.sh web installs it)" >&2; exit 1; }
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  for f in "$SITE"/*.js "$SITE"/cards/*.js "$SITE"/vramplan.mjs; do
    "$ESBUILD" "$f" --minify-whitespace --minify-syntax --format=esm --log-level=warning --outfile="$f.min"
    mv "$f.min" "$f"
  done
  "$ESBUILD" "$SITE/style.css" --minify --log-level=warning --outfile="$SITE/style.min.css"
  mv "$SITE/style.min.css" "$SITE/style.css"
fi

# index.html / serve.html: the indentation after each line break (no <pre>; the textareas are empty)
for f in "$SITE"/*.html; do
  sed -i 's/^[[:space:]]\+//' "$f"
done

mkdir -p "$SITE/examples"
shopt -s nullglob
EXAMPLES=("$ROOT"/examples/*.json)
shopt -u nullglob
if [ "${#EXAMPLES[@]}" -gt 0 ]; then
  cp "${EXAMPLES[@]}" "$SITE/examples/"
fi
command -v node >/dev/null || { echo "web/build.sh: node not found (it writes examples/index.json)" >&2; exit 1; }
node - "$SITE/examples" <<'JS'
const fs = require('fs');
const path = require('path');
const dir = process.argv[2];
const out = [];
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'index.json').sort()) {
  let plan;
  try {
    plan = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  } catch (e) {
    console.error(`web/build.sh: examples/${file} is not valid JSON: ${e.message}`);
    process.exit(1);
  }
  if (plan.schema !== 'vramplan/plan@1') continue; // not a plan: not offered
  out.push({ file, name: typeof plan.name === 'string' ? plan.name : file });
  // served without the indentation (the same plan: the page and the core read JSON, not layout)
  fs.writeFileSync(path.join(dir, file), JSON.stringify(plan) + '\n');
}
fs.writeFileSync(path.join(dir, 'index.json'), JSON.stringify(out) + '\n');
JS

# Size report and budget (gzip -9 of each file, as a static host would serve it).
total=0
while IFS= read -r -d '' f; do
  gz=$(gzip -9 -c "$f" | wc -c)
  total=$((total + gz))
  printf '  %-36s %8d B  %7d B gzip\n' "${f#"$SITE"/}" "$(wc -c <"$f")" "$gz"
done < <(find "$SITE" -type f -print0 | sort -z)
printf 'web/build.sh: dist/site is %d B gzip (budget %d B)\n' "$total" "$BUDGET"
if [ "$total" -gt "$BUDGET" ]; then
  echo "web/build.sh: over the byte budget" >&2
  exit 1
fi
