#!/usr/bin/env bash
# Set up everything on a fresh machine and run the whole test suite, lint gate included:
# Docker from Debian's packages, a daemon of our own if none runs, the offline test images,
# a virtualenv with the pinned dependencies. Under CI=true no Docker test may skip.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/docker-daemon.sh
. "$root/scripts/lib/docker-daemon.sh"
trap vpr_stop_daemon EXIT

vpr_install_packages
vpr_start_daemon
python3 "$root/tests/images/build.py" all
vpr_venv "$root"
cd "$root"
echo "lint: ruff and mypy"
.venv/bin/ruff check src tests bench scripts
.venv/bin/ruff format --check src tests bench scripts
.venv/bin/mypy
echo "audit: workflows and actions"
bash scripts/audit_actions.sh
echo "tests: pytest"
.venv/bin/python -m pytest "$@"
