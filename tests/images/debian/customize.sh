#!/bin/sh
# mmdebstrap customize hook for verify-pr's Debian images: $1 is the root directory.
# Strips what dpkg's path-exclude rules could not keep out and adds the sandbox's mount points.
set -eu
root="$1"
[ -d "$root/usr" ] || { echo "customize.sh: $root is not a root filesystem" >&2; exit 1; }

# Documentation (keep the copyright files), man/info pages, translations, lintian overrides.
if [ -d "$root/usr/share/doc" ]; then
    find "$root/usr/share/doc" -depth -mindepth 1 ! -type d ! -name copyright -delete
    find "$root/usr/share/doc" -depth -mindepth 1 -type d -empty -delete
fi
rm -rf "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/lintian" \
    "$root/usr/share/linda" "$root/usr/share/doc-base" "$root/usr/share/bug"
if [ -d "$root/usr/share/locale" ]; then
    find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
fi
# Logs and caches of the build itself.
find "$root/var/log" -type f -delete
rm -rf "$root/var/cache/debconf/"*-old "$root/var/lib/dpkg/"*-old

# Mount points the sandbox uses; they must exist and be empty.
mkdir -p "$root/work" "$root/cap" "$root/repo" "$root/tmp"
chmod 0755 "$root/work" "$root/cap" "$root/repo"
chmod 1777 "$root/tmp"
