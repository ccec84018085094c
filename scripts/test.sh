#!/usr/bin/env bash
# Set up everything on a fresh machine and run the whole test suite, lint gate included:
# Docker from Debian's packages, a daemon of our own if none runs, the offline test images,
# a virtualenv with the pinned dependencies. Under CI=true no Docker test may skip.
#
# With no arguments the suite runs in stages, one pytest each, the tier without Docker first
# and before Docker is even set up, so a broken unit fails in minutes, not after the Docker
# tier. Every stage runs when the one before passed, and any failing stage fails the script.
# With arguments, one pytest runs with exactly them (`bash scripts/test.sh tests/unit -x`).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/docker-daemon.sh
. "$root/scripts/lib/docker-daemon.sh"
trap vpr_stop_daemon EXIT

# name|pytest marker expression, in the order they run. Together they select every test
# exactly once, and each marker declared in pyproject.toml decides the stage of the tests it
# marks (tests/unit/test_suite_layout.py holds both to this list). The first needs no Docker.
STAGES=(
  "unit|not docker"
  "docker|docker and not hostile and not slow"
  "hostile|docker and hostile and not slow"
  "slow|docker and slow"
)

setup_docker() {
  vpr_install_packages
  vpr_start_daemon
  python3 "$root/tests/images/build.py" all
}

lint() {
  echo "lint: ruff and mypy"
  .venv/bin/ruff check src tests bench scripts
  .venv/bin/ruff format --check src tests bench scripts
  .venv/bin/mypy
  echo "audit: workflows and actions"
  bash scripts/audit_actions.sh
}

# One stage's pytest; its exit code is the stage's. pytest's 5 (no test collected) fails the
# stage too: a stage that selects nothing means a marker or a test path went astray.
run_stage() {
  local name=$1 expression=$2 code=0
  echo "tests: stage $name (-m \"$expression\")"
  .venv/bin/python -m pytest -m "$expression" || code=$?
  if [ "$code" -eq 5 ]; then
    echo "tests: stage $name selected no test (pytest exit 5): its markers match nothing" >&2
  fi
  return "$code"
}

cd "$root"
if [ $# -gt 0 ]; then
  setup_docker
  vpr_venv "$root"
  lint
  echo "tests: pytest $*"
  .venv/bin/python -m pytest "$@"
  exit 0
fi

vpr_venv "$root"
lint
for i in "${!STAGES[@]}"; do
  name=${STAGES[$i]%%|*}
  if [ "$i" -eq 1 ]; then
    setup_docker # only the first stage runs without Docker
  fi
  code=0
  run_stage "$name" "${STAGES[$i]#*|}" || code=$?
  if [ "$code" -ne 0 ]; then
    echo "tests: stage $name failed (exit $code); the stages after it did not run" >&2
    exit "$code"
  fi
done
echo "tests: all ${#STAGES[@]} stages passed"
