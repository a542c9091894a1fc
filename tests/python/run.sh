#!/bin/sh
# The Python package's tests: a fresh virtual environment in a temporary folder, the package installed
# offline from ./python (pip install --no-index --no-build-isolation, which builds the C core with
# CMake), then pytest on tests/python. Needs python3-venv, python3-pytest and python3-torch (Debian;
# scripts/deps.sh) and the CLI built in build/ (the byte-for-byte comparisons run it).
#   VRAMPLAN_PYTHON   the interpreter (default: Debian's /usr/bin/python3, where python3-torch lives)
#   VRAMPLAN_CLI      the CLI to compare with (default build/cli/vramplan)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${VRAMPLAN_PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi
fi
export VRAMPLAN_CLI="${VRAMPLAN_CLI:-$ROOT/build/cli/vramplan}"
[ -x "$VRAMPLAN_CLI" ] || { echo "tests/python: build the CLI first ($VRAMPLAN_CLI)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
# --system-site-packages: pytest and torch come from Debian's packages; pip runs with no index
"$PY" -m venv --system-site-packages "$TMP/venv"
cd "$TMP"  # so that the package is imported from the venv, not from the source tree
"$TMP/venv/bin/pip" install --quiet --no-index --no-build-isolation "$ROOT/python"
"$TMP/venv/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/tests/python" "$@"
