#!/usr/bin/env bash
# The main job on built-in defaults, from a bare Debian machine: set up Docker, the offline
# Python test image and .venv, then judge three pull requests on a small repository made in a
# temp dir (scripts/demo.py): a real fix (VERIFIED), a weakened test (NOT PROVEN, with the
# reason) and an attack the sandbox contains. Exits non-zero unless all three came out so.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/docker-daemon.sh
. "$root/scripts/lib/docker-daemon.sh"
trap vpr_stop_daemon EXIT

vpr_install_packages
# the demo's repository is a git history, and verify-pr compare reads it with git
if ! command -v git >/dev/null 2>&1; then
  echo "setup: installing git"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq git >/dev/null
fi
vpr_start_daemon
python3 "$root/tests/images/build.py" python
# One more -q than vpr_venv's own for this install only: pip then prints errors but no
# warnings (a machine's pip.conf naming index folders that do not exist warns once a package).
PIP_QUIET=1 vpr_venv "$root"
echo
"$root/.venv/bin/python" "$root/scripts/demo.py"
