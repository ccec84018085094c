#!/usr/bin/env bash
# Fetch GitHub's official REST API description and real webhook payloads from the npm registry
# into tests/.cache (gitignored). Pinned versions, checked against the registry's sha512 integrity.
# Idempotent: does nothing when the extracted files for these versions are already there.
set -euo pipefail

OPENAPI_VERSION=23.0.2
OPENAPI_INTEGRITY="sha512-pV8M7L9GY23AybNvTmo2nyjmpmnt6+2sRE/tqr0ZLQcPS4lnw7u5eZGNmwRNkBC3D7gZXbFx5AHzLUVRBXGDhg=="
EXAMPLES_VERSION=7.6.1
EXAMPLES_INTEGRITY="sha512-De6U3XB6O3DtCa7bKgCMzTHdeopqqZ6SNivMYJnK65ierKL1AnNIA0tkRYCRS7lwGT792d+Ps1WbfHlso6MynQ=="

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache="${VERIFY_PR_TEST_CACHE:-$here/../.cache}"
mkdir -p "$cache"
cd "$cache"
export NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false

fetch() { # package version integrity member output
  local package=$1 version=$2 integrity=$3 member=$4 output=$5
  local stamp="$output.version"
  if [[ -f $output && -f $stamp && $(<"$stamp") == "$package@$version" ]]; then
    return 0
  fi
  local tarball
  tarball=$(npm pack --silent "$package@$version")
  local actual
  actual="sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
  if [[ $actual != "$integrity" ]]; then
    echo "fetch_openapi: $package@$version integrity mismatch: $actual" >&2
    rm -f "$tarball"
    exit 1
  fi
  tar -xzf "$tarball" -O "$member" > "$output.tmp"
  mv "$output.tmp" "$output"
  printf '%s' "$package@$version" > "$stamp"
  rm -f "$tarball"
}

fetch @octokit/openapi "$OPENAPI_VERSION" "$OPENAPI_INTEGRITY" \
  package/generated/api.github.com.json api.github.com.json
fetch @octokit/webhooks-examples "$EXAMPLES_VERSION" "$EXAMPLES_INTEGRITY" \
  package/api.github.com/index.json webhooks-examples.json
echo "$cache"
