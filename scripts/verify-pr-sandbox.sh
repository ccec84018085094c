#!/usr/bin/env bash
# The spec's runner path: a thin shim to the Python CLI (the contract lives there).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if command -v verify-pr-sandbox >/dev/null 2>&1; then
  exec verify-pr-sandbox "$@"
fi
exec env PYTHONPATH="$here/src${PYTHONPATH:+:$PYTHONPATH}" python3 -m verify_pr.sandbox.cli "$@"
