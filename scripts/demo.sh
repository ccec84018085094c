#!/usr/bin/env bash
# The main job on a built-in default: set up, then run the sample repo's check in the
# sandbox on the minimal image and print what the host wrote.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/docker-daemon.sh
. "$root/scripts/lib/docker-daemon.sh"
trap vpr_stop_daemon EXIT

vpr_install_packages
vpr_start_daemon
python3 "$root/tests/images/build.py" minimal
vpr_venv "$root"
out=$(mktemp -d)
rc=0
"$root/.venv/bin/verify-pr-sandbox" --repo "$root/examples/sample-repo" --out "$out" \
  --image verify-pr-minimal:local --timeout 60 --cmd 'sh ./check.sh' || rc=$?
echo "--- $out/result.json (runner exit $rc)"
cat "$out/result.json"
echo "--- $out/output.txt"
cat "$out/output.txt"
exit "$rc"
