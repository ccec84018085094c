#!/usr/bin/env bash
# The main job on built-in defaults: set up, run the sample repo's check in the sandbox on
# the minimal image, then verify the sample pytest project's suite in the python image.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/docker-daemon.sh
. "$root/scripts/lib/docker-daemon.sh"
trap vpr_stop_daemon EXIT

vpr_install_packages
vpr_start_daemon
python3 "$root/tests/images/build.py" minimal python
vpr_venv "$root"
out=$(mktemp -d)
rc=0
"$root/.venv/bin/verify-pr-sandbox" --repo "$root/examples/sample-repo" --out "$out" \
  --image verify-pr-minimal:local --timeout 60 --cmd 'sh ./check.sh' || rc=$?
echo "--- $out/result.json (runner exit $rc)"
cat "$out/result.json"
echo "--- $out/output.txt"
cat "$out/output.txt"
[ "$rc" -eq 0 ] || exit "$rc"

echo "--- the verifier: examples/sample-pytest's suite in the sandbox, judged from its report"
vout=$(mktemp -d)
vrc=0
"$root/.venv/bin/verify-pr" run --repo "$root/examples/sample-pytest" --image verify-pr-python:local \
  --out "$vout" --timeout 120 || vrc=$?
echo "--- verify-pr exit $vrc; files in $vout: $(ls "$vout" | tr '\n' ' ')"
exit "$vrc"
