# verify-pr stage 1 (runs as the container's first shell, before any untrusted code).
# Re-executes the wrapper from a copy of /bin/sh that its own user cannot read: the kernel
# then marks the process non-dumpable, so no process of the same uid can ptrace it or open
# its /proc/<pid>/mem, environ or fd entries. The nonce is read only after this.
umask 077
d=/work/.verify-pr-wrapper
if ! { mkdir "$d" && cat /bin/sh > "$d/sh" && chmod 0111 "$d/sh"; }; then
  echo "verify-pr: cannot prepare the hardened wrapper shell in /work" >&2
  exit 125
fi
w=$1
shift
exec "$d/sh" -c "$w" verify-pr-wrapper "$@"
