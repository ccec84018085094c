"""Engine paths with a small fake at the container-API seam (the real daemon proves the rest)."""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import struct
import time
from typing import Any

import pytest

from verify_pr.errors import SandboxBlocked
from verify_pr.sandbox import engine
from verify_pr.sandbox.container_api import AttachStream, ContainerApi, KillApi
from verify_pr.sandbox.engine import EngineSettings
from verify_pr.sandbox.policy import SandboxPolicy

POLICY = SandboxPolicy(
    image="img", repo="/r", command="true", timeout_s=5, max_output=10, name="verify-pr-x"
)
ZERO_TIMEOUT = dataclasses.replace(POLICY, timeout_s=0)
NONCE = "0123456789abcdef" * 2


def good_inspect() -> dict[str, Any]:
    return {
        "HostConfig": {
            "NetworkMode": "none",
            "ReadonlyRootfs": True,
            "PidsLimit": 256,
            "NanoCpus": 10**9,
            "Init": True,
            "Privileged": False,
            "CapDrop": ["ALL"],
            "CapAdd": None,
            "Memory": 512 * 2**20,
            "MemorySwap": 512 * 2**20,
            "SecurityOpt": POLICY.security_opt,
        },
        "Mounts": [{"Destination": "/repo"}],
    }


class FakeStream:
    """One end of a socket pair; the test holds the other end as the container's side."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    @property
    def raw(self) -> socket.socket:
        return self._sock

    def close(self) -> None:
        self._sock.close()


class FakeApi:
    """A ContainerApi whose container writes ``stdout`` at start and then ends (EOF), unless
    ``hang`` is set: then only a kill ends it, as the daemon would."""

    def __init__(
        self,
        warnings: list[str],
        info: dict[str, Any],
        stdout: bytes = b"",
        hang: bool = False,
        exited: dict[str, Any] | None = None,
    ) -> None:
        self.warnings = warnings
        self.info = {**info, "State": {"OOMKilled": False}}
        # With ``exited``: the State inspect reports once the stream has ended (a daemon that
        # marked the container exited by then); without it, a daemon that has not yet.
        self.exited = exited
        self.ended = False
        self.stdout = stdout
        self.hang = hang
        self.removed: list[str] = []
        self.calls: list[str] = []
        self.stdin = b""
        self.container_side: socket.socket | None = None

    def create(self, kwargs: dict[str, Any]) -> tuple[str, list[str]]:
        self.calls.append("create")
        return "c" * 64, self.warnings

    def inspect(self, container_id: str) -> dict[str, Any]:
        self.calls.append("inspect")
        if self.exited is not None and self.ended:
            return {**self.info, "State": self.exited}
        return self.info

    def attach(self, container_id: str) -> AttachStream:
        self.calls.append("attach")
        host_side, self.container_side = socket.socketpair()
        return FakeStream(host_side)

    def start(self, container_id: str) -> None:
        self.calls.append("start")
        assert self.container_side is not None
        self.container_side.sendall(struct.pack(">BxxxL", 1, len(self.stdout)) + self.stdout)
        if not self.hang:
            self.end()

    def end(self) -> None:
        assert self.container_side is not None
        self.container_side.shutdown(socket.SHUT_WR)
        self.ended = True

    def wait(self, container_id: str, timeout_s: int) -> int:
        self.calls.append(f"wait {timeout_s}")
        return 137 if self.hang else 0

    def remove(self, container_id: str) -> None:
        self.calls.append("remove")
        self.removed.append(container_id)
        if self.container_side is not None:  # keep what the container was sent on stdin
            self.container_side.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                self.stdin = self.container_side.recv(1024)
            self.container_side.close()


class FakeKiller:
    def __init__(self, api: FakeApi) -> None:
        self.api = api
        self.killed: list[str] = []
        self.closed = False

    def kill(self, container_id: str) -> None:
        self.killed.append(container_id)
        self.api.end()

    def close(self) -> None:
        # A slow close widens the window in which a run that did not wait for its watchdog
        # would return with the kill client still open (the race that once made this flaky).
        time.sleep(0.2)
        self.closed = True


class RecordingKiller:
    def __init__(self) -> None:
        self.killed: list[str] = []

    def kill(self, container_id: str) -> None:
        self.killed.append(container_id)

    def close(self) -> None:
        pass


def settings(killer: KillApi | None = None, **over: Any) -> EngineSettings:
    def kill_client() -> KillApi:
        assert killer is not None, "the watchdog fired in a test that gave it no client"
        return killer

    return EngineSettings(new_nonce=lambda: NONCE, kill_client=kill_client, **over)


def run(api: ContainerApi, policy: SandboxPolicy = POLICY, **over: Any) -> engine.EngineRun:
    return engine.run_container(api, policy, settings(**over))


def test_create_warning_is_blocked_and_container_removed() -> None:
    api = FakeApi(["Your kernel does not support swap limit capabilities"], good_inspect())
    with pytest.raises(SandboxBlocked, match="dropped a control"):
        run(api)
    assert api.removed == ["c" * 64]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("NetworkMode", "bridge"),
        ("ReadonlyRootfs", False),
        ("PidsLimit", 0),
        ("Init", False),
        ("CapDrop", []),
        ("MemorySwap", -1),
        ("Memory", 256 * 2**20),  # a limit, but not the one the policy asked for
        ("SecurityOpt", ["no-new-privileges"]),  # an engine that dropped our seccomp profile
        ("SecurityOpt", None),
    ],
)
def test_missing_control_on_the_created_container_is_blocked(key: str, value: object) -> None:
    info = good_inspect()
    info["HostConfig"][key] = value
    api = FakeApi([], info)
    with pytest.raises(SandboxBlocked, match="lacks controls"):
        run(api)
    assert api.removed == ["c" * 64]


def test_extra_mount_is_blocked() -> None:
    info = good_inspect()
    info["Mounts"].append({"Destination": "/var/run/docker.sock"})
    with pytest.raises(SandboxBlocked, match="Mounts"):
        run(FakeApi([], info))


def test_the_injected_nonce_is_the_first_thing_the_container_reads() -> None:
    api = FakeApi([], good_inspect(), stdout=b"hello\n")
    seen = run(api, daemon_grace_s=7)
    assert api.stdin == NONCE.encode() + b"\n"
    assert seen.nonce == NONCE and seen.capture.nonce == NONCE
    assert bytes(seen.capture.head) == b"hello\n" and seen.docker_exit == 0
    assert not seen.watchdog_fired and seen.watchdog_after_s == POLICY.timeout_s + 15
    # The daemon had not marked it exited at EOF: the daemon grace bounds the wait; the
    # container is removed after its last inspect.
    assert api.calls == [
        *("create", "inspect", "attach", "start"),
        *("inspect", "wait 7", "inspect", "remove"),
    ]


def test_a_container_the_daemon_already_marked_exited_is_not_waited_for() -> None:
    exited = {"Status": "exited", "ExitCode": 3, "OOMKilled": True}
    api = FakeApi([], good_inspect(), stdout=b"hello\n", exited=exited)
    seen = run(api, daemon_grace_s=7)
    # the exit code and OOMKilled come from that one inspect
    assert seen.docker_exit == 3 and seen.oom_killed
    assert api.calls == ["create", "inspect", "attach", "start", "inspect", "remove"]


def test_a_state_without_an_exit_code_is_waited_for() -> None:
    # positive control of the test above: "exited" alone, with no exit code, is not trusted
    api = FakeApi([], good_inspect(), stdout=b"hello\n", exited={"Status": "exited"})
    seen = run(api, daemon_grace_s=7)
    assert seen.docker_exit == 0 and "wait 7" in api.calls


def test_watchdog_kills_with_the_injected_client_after_the_injected_grace() -> None:
    # A timeout and grace of 0 arm the watchdog at once; the container ends only when killed.
    api = FakeApi([], good_inspect(), hang=True)
    killer = FakeKiller(api)
    seen = run(api, ZERO_TIMEOUT, killer=killer, watchdog_grace_s=0, daemon_grace_s=600)
    assert seen.watchdog_fired and seen.watchdog_after_s == 0
    assert killer.killed == ["c" * 64] and killer.closed
    assert seen.docker_exit == 137 and api.removed == ["c" * 64]


def test_a_silent_daemon_is_blocked_after_the_daemon_grace() -> None:
    # All graces 0: the host gives up at the first look, and still removes the container.
    api = FakeApi([], good_inspect(), hang=True)
    recorder = RecordingKiller()  # the watchdog, armed at 0 s too, may or may not fire first
    with pytest.raises(SandboxBlocked, match="stopped answering"):
        run(api, ZERO_TIMEOUT, killer=recorder, watchdog_grace_s=0, daemon_grace_s=0)
    assert api.removed == ["c" * 64]
