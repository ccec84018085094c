#!/usr/bin/env bash
# Audit every workflow and action file shipped: zizmor (offline, medium severity and above,
# unparseable files fail) and check-jsonschema's built-in GitHub schemas. Run by scripts/test.sh.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bin=${VPR_BIN:-$root/.venv/bin}
mapfile -t workflows < <(ls .github/workflows/*.yml docs/examples/*.yml workflow-templates/*.yml)
actions=(action.yml publish/action.yml)
echo "audit: zizmor over ${#workflows[@]} workflows and ${#actions[@]} actions"
"$bin/zizmor" --offline --min-severity medium --strict-collection --no-progress \
  "${workflows[@]}" "${actions[@]}"
echo "audit: check-jsonschema (vendor.github-workflows, vendor.github-actions)"
"$bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"
"$bin/check-jsonschema" --builtin-schema vendor.github-actions "${actions[@]}"
