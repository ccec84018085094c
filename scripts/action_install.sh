#!/usr/bin/env bash
# Install verify-pr from the action's own folder into a fresh, isolated venv.
# Usage: action_install.sh ROOT VENV. Every dependency comes from requirements/action.txt,
# hash-checked, wheels only; pip ignores the runner's pip config and environment (--isolated),
# and the package itself is installed without dependencies and without the index.
# Every Python started here runs with -I (isolated mode: no current directory, no PYTHON*
# variables, no user site on sys.path), so a PR's `pip/` or `venv.py` in the working
# directory is never imported; action.yml also runs this step outside the workspace.
set -euo pipefail
root=$1
venv=$2
python=${VERIFY_PR_BOOTSTRAP_PYTHON:-python3}
if ! "$python" -I -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "::error title=verify-pr::verify-pr needs Python 3.11 or newer as python3 (add actions/setup-python before it)"
  exit 2
fi
rm -rf "$venv"
# venv runs ensurepip with -I when it runs isolated itself; pip then runs from the venv, -I.
"$python" -I -m venv "$venv"
pip=("$venv/bin/python" -I -m pip)
pip+=(--isolated --disable-pip-version-check --no-input --quiet)
"${pip[@]}" install --require-hashes --only-binary :all: -r "$root/requirements/action.txt"
"${pip[@]}" install --no-deps --no-build-isolation --no-index "$root"
echo "verify-pr: installed into $venv"
