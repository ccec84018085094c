#!/usr/bin/env bash
# Install verify-pr from the action's own folder into a fresh, isolated venv.
# Usage: action_install.sh ROOT VENV. Every dependency comes from requirements/action.txt,
# hash-checked, wheels only; pip ignores the runner's pip config and environment (--isolated),
# and the package itself is installed without dependencies and without the index.
set -euo pipefail
root=$1
venv=$2
python=${VERIFY_PR_BOOTSTRAP_PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "::error title=verify-pr::verify-pr needs Python 3.11 or newer as python3 (add actions/setup-python before it)"
  exit 2
fi
rm -rf "$venv"
# The runner's own pip drives the install into a pip-less venv (fast, nothing extra in it);
# a venv with its own pip when the runner's pip is missing or older than 22.3 (no --python).
if "$python" -m pip --python "$python" --version >/dev/null 2>&1; then
  "$python" -m venv --without-pip "$venv"
  pip=("$python" -m pip --python "$venv/bin/python")
else
  "$python" -m venv "$venv"
  pip=("$venv/bin/python" -m pip)
fi
pip+=(--isolated --disable-pip-version-check --no-input --quiet)
"${pip[@]}" install --require-hashes --only-binary :all: -r "$root/requirements/action.txt"
"${pip[@]}" install --no-deps --no-build-isolation --no-index "$root"
echo "verify-pr: installed into $venv"
