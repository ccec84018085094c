# Sourced by the setup scripts: find a reachable Docker daemon or start one of our own.
# Ours listens on its own socket with --bridge=none --iptables=false (no network path for
# any container) and is stopped by pid by whoever started it (vpr_stop_daemon).
VPR_RUN=${VPR_RUN:-/run/verify-pr}
VPR_DATA_ROOT=${VPR_DATA_ROOT:-/var/lib/verify-pr-docker}
VPR_STARTED_DAEMON=

vpr_docker_ok() { timeout 10 docker info >/dev/null 2>&1; }

vpr_install_packages() {
  local missing=()
  command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
  command -v docker >/dev/null 2>&1 || missing+=(docker.io)
  [ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -qx mkfifo || missing+=(busybox-static)
  command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

vpr_start_daemon() {
  if [ -z "${DOCKER_HOST:-}" ] && vpr_docker_ok; then
    echo "setup: using the Docker daemon already running"
    return 0
  fi
  if [ -S "$VPR_RUN/docker.sock" ]; then
    export DOCKER_HOST="unix://$VPR_RUN/docker.sock"
    if vpr_docker_ok; then echo "setup: using $DOCKER_HOST"; return 0; fi
  fi
  mkdir -p "$VPR_RUN" "$VPR_DATA_ROOT"
  echo "setup: starting dockerd (log: $VPR_RUN/dockerd.log)"
  dockerd --bridge=none --iptables=false --ip6tables=false \
    --data-root "$VPR_DATA_ROOT" --exec-root "$VPR_RUN/exec" \
    --pidfile "$VPR_RUN/dockerd.pid" -H "unix://$VPR_RUN/docker.sock" \
    >"$VPR_RUN/dockerd.log" 2>&1 &
  VPR_STARTED_DAEMON=$!
  export DOCKER_HOST="unix://$VPR_RUN/docker.sock"
  for _ in $(seq 1 120); do
    if vpr_docker_ok; then echo "setup: dockerd is up (pid $VPR_STARTED_DAEMON)"; return 0; fi
    if ! kill -0 "$VPR_STARTED_DAEMON" 2>/dev/null; then break; fi
    sleep 0.5
  done
  echo "setup: dockerd did not come up; its log:" >&2
  tail -n 30 "$VPR_RUN/dockerd.log" >&2
  return 1
}

vpr_stop_daemon() {
  [ -n "$VPR_STARTED_DAEMON" ] || return 0
  echo "setup: stopping the dockerd we started (pid $VPR_STARTED_DAEMON)"
  kill -TERM "$VPR_STARTED_DAEMON" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 "$VPR_STARTED_DAEMON" 2>/dev/null || return 0
    sleep 0.5
  done
  kill -KILL "$VPR_STARTED_DAEMON" 2>/dev/null || true
}

vpr_venv() {
  local root=$1
  if [ ! -x "$root/.venv/bin/python" ]; then
    python3 -m venv "$root/.venv"
  fi
  "$root/.venv/bin/python" -m pip install -q --disable-pip-version-check -e "$root[test,lint]"
}
