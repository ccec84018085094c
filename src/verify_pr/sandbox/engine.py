"""Container lifecycle for one run: create, attach, start, send the nonce, stream, watchdog,
wait, inspect, remove. The container is always removed, whatever happens.

Each live container is registered with :mod:`cancel` by full id: a signal to the run removes
it from the main thread while this thread streams, and the stream loop then raises
``Cancelled`` (a run a signal cut short is never a result).

What the engine needs from outside comes in: the container API (a protocol the Docker adapter
implements) and :class:`EngineSettings` (the nonce source, the grace periods, the watchdog's
kill client), whose defaults are the shipped values.
"""

from __future__ import annotations

import secrets
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from verify_pr.errors import SandboxBlocked
from verify_pr.sandbox import cancel
from verify_pr.sandbox.capture import FrameDemuxer, StreamCapture
from verify_pr.sandbox.container_api import ContainerApi, KillApi
from verify_pr.sandbox.docker_api import DockerApi
from verify_pr.sandbox.policy import SandboxPolicy

# How long past the check's timeout the host waits before its watchdog kills the container.
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
    watchdog_after_s: int  # when the watchdog was set to fire, in seconds after start


def new_nonce() -> str:
    return secrets.token_hex(16)


@dataclass(frozen=True)
class EngineSettings:
    """The engine's inputs besides the API and the policy; the defaults are the shipped ones."""

    new_nonce: Callable[[], str] = new_nonce
    watchdog_grace_s: int = WATCHDOG_GRACE_S
    daemon_grace_s: int = DAEMON_GRACE_S
    # A client of its own for the watchdog: the engine's connection is busy streaming.
    kill_client: Callable[[], KillApi] = DockerApi


def run_container(
    api: ContainerApi, policy: SandboxPolicy, settings: EngineSettings | None = None
) -> EngineRun:
    settings = settings or EngineSettings()
    cancel.check()
    container_id, warnings = api.create(policy.create_kwargs())
    try:
        cancel.enter(container_id)
        if warnings:
            raise SandboxBlocked(f"the daemon dropped a control at create: {'; '.join(warnings)}")
        _verify_controls(api.inspect(container_id), policy)
        run = _run_created(api, policy, container_id, settings)
    except SandboxBlocked:
        cancel.check()  # the daemon's answers about a container the cancel removed
        raise
    finally:
        _remove(api, container_id)
    cancel.check()  # killed by the cancel: its exit says nothing
    return run


def _remove(api: ContainerApi, container_id: str) -> None:
    try:
        api.remove(container_id)
    except SandboxBlocked:
        if not cancel.requested():  # else the cancel's own sweep is removing it
            raise
    finally:
        cancel.leave(container_id)


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
    if hc.get("Memory") != policy.memory_bytes or hc.get("MemorySwap") != policy.memory_bytes:
        wrong.append("Memory")
    if hc.get("SecurityOpt") != policy.security_opt:  # no-new-privileges and our seccomp
        wrong.append("SecurityOpt")
    if len(info.get("Mounts") or []) != 1:
        wrong.append("Mounts")
    if wrong:
        raise SandboxBlocked(f"the created container lacks controls: {', '.join(wrong)}")


def _run_created(
    api: ContainerApi, policy: SandboxPolicy, container_id: str, settings: EngineSettings
) -> EngineRun:
    nonce = settings.new_nonce()
    capture = StreamCapture(
        head_limit=policy.max_output, nonce=nonce, coverage=policy.coverage_path is not None
    )
    demux = FrameDemuxer(capture)
    stream = api.attach(container_id)
    sock = stream.raw
    fired = threading.Event()
    try:
        cancel.check()
        api.start(container_id)
        started = time.monotonic()
        sock.sendall(nonce.encode() + b"\n")
        deadline = policy.timeout_s + settings.watchdog_grace_s
        watchdog = threading.Timer(deadline, _fire, (settings.kill_client, container_id, fired))
        watchdog.daemon = True
        watchdog.start()
        try:
            _pump(sock, demux, started + deadline + settings.daemon_grace_s)
        finally:
            _stop_watchdog(watchdog)
    finally:
        stream.close()
    exit_code, state = _exited_state(api, container_id, settings.daemon_grace_s)
    elapsed = time.monotonic() - started
    return EngineRun(
        capture=capture,
        nonce=nonce,
        docker_exit=exit_code,
        oom_killed=bool(state.get("OOMKilled")),
        watchdog_fired=fired.is_set(),
        elapsed_s=elapsed,
        watchdog_after_s=deadline,
    )


def _exited_state(api: ContainerApi, container_id: str, grace_s: int) -> tuple[int, dict[str, Any]]:
    """The exit code and the final state. The attach stream ends as the check exits: by then
    the daemon has usually marked the container exited, and one inspect says both (the exit
    code and OOMKilled are set with that state, together). Otherwise wait, then inspect."""
    state = api.inspect(container_id).get("State") or {}
    if state.get("Status") == "exited" and isinstance(state.get("ExitCode"), int):
        return int(state["ExitCode"]), state
    exit_code = api.wait(container_id, grace_s)
    return exit_code, api.inspect(container_id).get("State") or {}


def _stop_watchdog(watchdog: threading.Timer) -> None:
    """Cancel the timer and wait for it: if it already fired, its kill and the kill client's
    close finish before the run returns, so no thread of this run outlives it. The wait is
    bounded by the kill client's own API timeout (``docker_api.API_TIMEOUT_S``)."""
    watchdog.cancel()
    watchdog.join()


def _fire(kill_client: Callable[[], KillApi], container_id: str, fired: threading.Event) -> None:
    fired.set()
    killer = kill_client()
    try:
        killer.kill(container_id)
    finally:
        killer.close()


def _pump(sock: socket.socket, demux: FrameDemuxer, give_up_at: float) -> None:
    """Drain the attach stream until EOF; never stop reading while the container lives (a
    cancel removes the container, and this stops at the next wake-up)."""
    sock.setblocking(False)
    while True:
        cancel.check()
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
