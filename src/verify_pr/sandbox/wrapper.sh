# verify-pr stage 2: the in-container wrapper (POSIX sh; busybox or coreutils).
# Arguments: CMD TIMEOUT_S CAPTURE_BYTES REPORT_PATH_OR_DASH COVERAGE_PATH_OR_DASH. The nonce
# (128 bits) arrives on
# stdin. Only builtins ever see the nonce: it never reaches an environment or an argv.
rm -rf /work/.verify-pr-wrapper
umask 022
cmd=$1 t=$2 cap=$3 rep=$4 cov=${5:--}
IFS= read -r nonce || exit 125
case $nonce in *[!0-9a-f]* | "") exit 125 ;; esac
[ "${#nonce}" -eq 32 ] || exit 125

fail() {
  echo "verify-pr: wrapper failed: $1" >&2
  printf '\nVPR1 %s WRAPPER %s none 0\n' "$nonce" "$1"
  [ "$cov" != - ] && printf '\nVPR1 %s COV none 0\n' "$nonce"
  printf '\nVPR1 %s END\n' "$nonce"
  exit 125
}

cp -R /repo/. /work/ || fail copy
cd /work || fail cd
stale=
if [ "$rep" != - ] && { [ -e "$rep" ] || [ -L "$rep" ]; }; then stale=1; fi
cstale=
if [ "$cov" != - ] && { [ -e "$cov" ] || [ -L "$cov" ]; }; then cstale=1; fi
mkfifo /cap/.verify-pr-out || fail fifo

# The capture keeps CAPTURE_BYTES and drains the rest, so a flood cannot block the check.
(head -c "$cap"; exec cat > /dev/null) < /cap/.verify-pr-out &
capper=$!

# start_of PID: its start time (field 22 of /proc/PID/stat) in $st_out, builtins only.
start_of() {
  st_out=
  { IFS= read -r st_line < "/proc/$1/stat"; } 2> /dev/null || return 1
  # shellcheck disable=SC2086
  set -- ${st_line##*") "}
  [ "$#" -ge 20 ] || return 1
  shift 19
  st_out=$1
}
# Pinned now, while the capture is our unreaped child. If the check kills it, the pid is
# freed; a process that later takes the same pid (the pid space wraps) has another start
# time and is swept like any other.
start_of "$capper"
capst=$st_out
# Start times count clock ticks (10 ms): the check starts only once a fresh process's tick is
# past the capture's, so no process of the check can share the capture's start time.
tick=0
while [ -n "$capst" ]; do
  (exit 0) &
  if start_of "$!" && [ "$st_out" -gt "$capst" ]; then wait "$!"; break; fi
  wait "$!"
  tick=$((tick + 1))
  [ "$tick" -gt 1000 ] && fail clock
done

env -i PATH="$PATH" HOME=/work CI=1 timeout -s KILL "$t" /bin/sh -c "$cmd" \
  < /dev/null > /cap/.verify-pr-out 2>&1
rc=$?

# End every process but init, this wrapper and the capture (the process started above, checked
# by its start time, and its children): setsid children, stopped trees, daemons and pid reusers
# included. Only then does anything carry the nonce to stdout.
is_capture() {
  [ -n "$genuine" ] || return 1
  [ "$1" = "$capper" ] && return 0
  while IFS= read -r line; do
    case $line in PPid:*) [ "${line#PPid:?}" = "$capper" ] && return 0; return 1 ;; esac
  done 2> /dev/null < "/proc/$1/status"
  return 1
}
rounds=0
while :; do
  others= caps= genuine=
  if [ -n "$capst" ] && start_of "$capper" && [ "$st_out" = "$capst" ]; then genuine=1; fi
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    if [ "$p" = 1 ] || [ "$p" = "$$" ]; then continue; fi
    if is_capture "$p"; then caps="$caps $p" && continue; fi
    others="$others $p"
  done
  # A stopped capture would hold the wait below for ever: wake every capture process.
  # shellcheck disable=SC2086
  [ -n "$caps" ] && kill -CONT $caps 2> /dev/null
  [ -z "$others" ] && break
  # shellcheck disable=SC2086
  kill -9 $others 2> /dev/null
  rounds=$((rounds + 1))
  [ "$rounds" -gt 500 ] && fail sweep
  sleep 0.01 2> /dev/null || sleep 1
done
kill -CONT "$capper" 2> /dev/null
wait "$capper"

# state_of PATH STALE CAP: the file's state in $fs and its length in $fl (0 unless returned).
state_of() {
  fs=none fl=0
  [ "$1" = - ] && return 0
  if [ -n "$2" ]; then
    fs=stale
  elif [ -L "$1" ] || { [ -e "$1" ] && [ ! -f "$1" ]; }; then
    fs=not_regular
  elif [ ! -e "$1" ]; then
    fs=missing
  else
    fl=$(($(wc -c < "$1")))
    if [ "$fl" -gt "$3" ]; then fs=too_large fl=0; else fs=returned; fi
  fi
}
state_of "$rep" "$stale" 67108864
printf '\nVPR1 %s RC %s %s %s\n' "$nonce" "$rc" "$fs" "$fl"
[ "$fs" = returned ] && head -c "$fl" < "$rep"
if [ "$cov" != - ]; then
  state_of "$cov" "$cstale" 16777216
  printf '\nVPR1 %s COV %s %s\n' "$nonce" "$fs" "$fl"
  [ "$fs" = returned ] && head -c "$fl" < "$cov"
fi
printf '\nVPR1 %s END\n' "$nonce"
exit "$rc"
