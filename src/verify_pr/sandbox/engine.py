"""Container lifecycle for one run: create, attach, start, send the nonce, stream, watchdog,
wait, inspect, remove. The container is always removed, whatever happens.
"""

from __future__ import annotations

import secrets
import select
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from verify_pr.errors import SandboxBlocked
from verify_pr.sandbox.capture import FrameDemuxer, StreamCapture
from verify_pr.sandbox.docker_api import DockerApi
from verify_pr.sandbox.policy import SandboxPolicy

WATCHDOG_GRACE_S = 15
# After the watchdog fires, how long the host keeps waiting for the daemon before BLOCKED.
DAEMON_GRACE_S = 30
_RECV_BYTES = 256 * 1024


@dataclass(frozen=True)
class EngineRun:
    """What the engine saw; :mod:`outcome` turns it into a status."""

    capture: StreamCapture
    nonce: str
    docker_exit: int
    oom_killed: bool
    watchdog_fired: bool
    elapsed_s: float


def new_nonce() -> str:
    return secrets.token_hex(16)


def run_container(api: DockerApi, policy: SandboxPolicy) -> EngineRun:
    container_id, warnings = api.create(policy.create_kwargs())
    try:
        if warnings:
            raise SandboxBlocked(f"the daemon dropped a control at create: {'; '.join(warnings)}")
        _verify_controls(api.inspect(container_id), policy)
        return _run_created(api, policy, container_id)
    finally:
        api.remove(container_id)


def _verify_controls(info: dict[str, Any], policy: SandboxPolicy) -> None:
    """Fail closed if the created container does not carry what the policy asked for."""
    hc = info.get("HostConfig") or {}
    expected = {
        "NetworkMode": "none",
        "ReadonlyRootfs": True,
        "PidsLimit": policy.pids_limit,
        "NanoCpus": policy.nano_cpus,
        "Init": True,
        "Privileged": False,
    }
    wrong = [key for key, value in expected.items() if hc.get(key) != value]
    if hc.get("CapDrop") != ["ALL"] or hc.get("CapAdd"):
        wrong.append("CapDrop")
    if not hc.get("Memory") or hc.get("Memory") != hc.get("MemorySwap"):
        wrong.append("Memory")
    if len(info.get("Mounts") or []) != 1:
        wrong.append("Mounts")
    if wrong:
        raise SandboxBlocked(f"the created container lacks controls: {', '.join(wrong)}")


def _run_created(api: DockerApi, policy: SandboxPolicy, container_id: str) -> EngineRun:
    nonce = new_nonce()
    capture = StreamCapture(head_limit=policy.max_output, nonce=nonce)
    demux = FrameDemuxer(capture)
    stream = api.attach(container_id)
    sock = stream.raw
    fired = threading.Event()
    try:
        api.start(container_id)
        started = time.monotonic()
        sock.sendall(nonce.encode() + b"\n")
        deadline = policy.timeout_s + WATCHDOG_GRACE_S
        watchdog = threading.Timer(deadline, _fire, (container_id, fired))
        watchdog.daemon = True
        watchdog.start()
        try:
            _pump(sock, demux, started + deadline + DAEMON_GRACE_S)
        finally:
            watchdog.cancel()
    finally:
        stream.close()
    exit_code = api.wait(container_id, DAEMON_GRACE_S)
    elapsed = time.monotonic() - started
    state = api.inspect(container_id).get("State") or {}
    return EngineRun(
        capture=capture,
        nonce=nonce,
        docker_exit=exit_code,
        oom_killed=bool(state.get("OOMKilled")),
        watchdog_fired=fired.is_set(),
        elapsed_s=elapsed,
    )


def _fire(container_id: str, fired: threading.Event) -> None:
    # A client of its own: the main thread's connection is busy streaming.
    fired.set()
    killer = DockerApi()
    try:
        killer.kill(container_id)
    finally:
        killer.close()


def _pump(sock: socket.socket, demux: FrameDemuxer, give_up_at: float) -> None:
    """Drain the attach stream until EOF; never stop reading while the container lives."""
    sock.setblocking(False)
    while True:
        remaining = give_up_at - time.monotonic()
        if remaining <= 0:
            raise SandboxBlocked("the Docker daemon stopped answering on the attach stream")
        ready, _, _ = select.select([sock], [], [], min(remaining, 1.0))
        if not ready:
            continue
        try:
            data = sock.recv(_RECV_BYTES)
        except BlockingIOError:
            continue
        except OSError as exc:
            raise SandboxBlocked(f"the attach stream broke: {exc}") from exc
        if not data:
            return
        demux.feed(data)
