#!/usr/bin/env bash
# Release verify-pr on the current branch (main): the commits docs/release.md describes, then the
# pin checks. Usage, from a clean work tree, after the last merge:
#   bash scripts/release.sh          # R (when the code moved) and the pin-bump, `# main YYYY-MM-DD`
#   bash scripts/release.sh --tag    # the same, R tagged vX.Y.Z (pyproject's version), `# vX.Y.Z`
# It changes nothing when the docs already pin HEAD's shipped files, and refuses when the tree is
# dirty or CHANGELOG.md's top entry is not pyproject's version. Push with a fast-forward or a
# merge commit (and the tag, if any): a rebase gives R another hash.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python3 scripts/release.py "$@"
python=.venv/bin/python
if [ ! -x "$python" ]; then
  python=python3 # a clone without the venv: the checks import verify_pr from src/
  export PYTHONPATH=src
fi
"$python" -m pytest -q -p no:randomly -p no:cacheprovider tests/unit/test_self_pins.py
