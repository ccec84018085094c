"""The cancel's registry, sweep and signal handling, with a small fake at the container seam
(tests/hostile/test_cancel.py proves it with real containers and a real `verify-pr`)."""

from __future__ import annotations

import os
import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from verify_pr.errors import Cancelled, SandboxBlocked
from verify_pr.exit_codes import CompareExit, RunExit
from verify_pr.sandbox import cancel, engine
from verify_pr.sandbox.container_api import AttachStream
from verify_pr.sandbox.engine import EngineSettings
from verify_pr.sandbox.policy import SandboxPolicy
from verify_pr.verify import cli

POLICY = SandboxPolicy(
    image="img", repo="/r", command="true", timeout_s=5, max_output=10, name="verify-pr-x"
)
ID = "c" * 64


@pytest.fixture(autouse=True)
def _clean_state() -> Iterator[None]:
    handlers = {sig: signal.getsignal(sig) for sig in cancel.SIGNALS}
    cancel.reset()
    yield
    cancel.reset()
    for sig, handler in handlers.items():
        signal.signal(sig, handler)


class Sweep:
    """The sweep's client: records removals; ``fail`` ids raise as a busy daemon would."""

    def __init__(self, on_remove: Any = None, fail: tuple[str, ...] = ()) -> None:
        self.removed: list[str] = []
        self.closed = False
        self.on_remove = on_remove
        self.fail = fail

    def remove(self, container_id: str) -> None:
        if container_id in self.fail:
            raise SandboxBlocked("removal already in progress")
        self.removed.append(container_id)
        if self.on_remove is not None:
            self.on_remove()

    def close(self) -> None:
        self.closed = True


class _Stream:
    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    @property
    def raw(self) -> socket.socket:
        return self._sock

    def close(self) -> None:
        self._sock.close()


class HangingApi:
    """A container that runs until removed (its stream then ends, as the daemon's does)."""

    def __init__(self, on_create: Any = None) -> None:
        self.calls: list[str] = []
        self.on_create = on_create
        self.container_side: socket.socket | None = None
        self.gone = False

    def create(self, kwargs: dict[str, Any]) -> tuple[str, list[str]]:
        self.calls.append("create")
        if self.on_create is not None:
            self.on_create()
        return ID, []

    def inspect(self, container_id: str) -> dict[str, Any]:
        self.calls.append("inspect")
        if self.gone:
            raise SandboxBlocked("no such container")
        hc = {
            "NetworkMode": "none",
            "ReadonlyRootfs": True,
            "PidsLimit": POLICY.pids_limit,
            "NanoCpus": POLICY.nano_cpus,
            "Init": True,
            "Privileged": False,
            "CapDrop": ["ALL"],
            "CapAdd": None,
            "Memory": POLICY.memory_bytes,
            "MemorySwap": POLICY.memory_bytes,
            "SecurityOpt": POLICY.security_opt,
        }
        return {"HostConfig": hc, "Mounts": [{}], "State": {"Status": "running"}}

    def attach(self, container_id: str) -> AttachStream:
        host_side, self.container_side = socket.socketpair()
        return _Stream(host_side)

    def start(self, container_id: str) -> None:
        self.calls.append("start")

    def wait(self, container_id: str, timeout_s: int) -> int:
        raise SandboxBlocked("no such container")

    def remove(self, container_id: str) -> None:
        self.calls.append("remove")
        self.vanish()

    def vanish(self) -> None:
        self.gone = True
        if self.container_side is not None:
            self.container_side.close()


def test_the_sweep_removes_every_live_container_and_the_trees(tmp_path: Path) -> None:
    tree = tmp_path / "out"
    (tree / "sub").mkdir(parents=True)
    cancel.enter("a" * 64)
    cancel.enter("b" * 64)
    cancel.enter("d" * 64)
    cancel.leave("d" * 64)  # removed by its own run already
    cancel.discard(tree)
    sweep = Sweep(fail=("a" * 64,))  # one the daemon refuses does not stop the rest
    assert cancel.cancel("SIGTERM", lambda: sweep) == ["b" * 64]
    assert sweep.removed == ["b" * 64] and sweep.closed
    assert not tree.exists()
    assert cancel.requested()
    with pytest.raises(Cancelled, match="cancelled by SIGTERM"):
        cancel.check()


def test_no_container_is_registered_after_the_cancel() -> None:
    cancel.cancel("SIGINT", Sweep)
    with pytest.raises(Cancelled):
        cancel.enter(ID)
    assert cancel.cancel("SIGINT", Sweep) == []  # nothing live: nothing to remove


def test_a_cancelled_run_creates_no_container() -> None:
    cancel.cancel("SIGTERM", Sweep)
    api = HangingApi()
    with pytest.raises(Cancelled):
        engine.run_container(api, POLICY)
    assert api.calls == []


def test_a_container_created_during_the_sweep_is_removed_by_its_run() -> None:
    """The cancel lands while the daemon creates the container: the sweep did not see it, so
    the engine's registration refuses it and the engine removes it."""
    api = HangingApi(on_create=lambda: cancel.cancel("SIGTERM", Sweep))
    with pytest.raises(Cancelled):
        engine.run_container(api, POLICY)
    assert api.calls == ["create", "remove"]


def test_a_cancel_mid_run_removes_the_container_and_the_run_raises() -> None:
    """The run streams on a worker thread; the cancel (the main thread's, in a real run)
    removes the container by id; the stream ends and the run is Cancelled, never a result."""
    api = HangingApi()
    outcome: list[BaseException | object] = []

    def run() -> None:
        try:
            outcome.append(engine.run_container(api, POLICY, EngineSettings(new_nonce=lambda: "n")))
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    while "start" not in api.calls:
        threading.Event().wait(0.01)
    sweep = Sweep(on_remove=api.vanish)
    assert cancel.cancel("SIGTERM", lambda: sweep) == [ID]
    worker.join(10)
    assert not worker.is_alive()
    assert isinstance(outcome[0], Cancelled), outcome
    assert api.calls[-1] == "remove"  # its own remove too: a container already gone is fine


def test_a_signal_raises_once_and_a_repeat_sweeps_without_raising() -> None:
    def signalled() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        threading.Event().wait(5)  # the handler raises in this thread before this ends

    with pytest.raises(Cancelled, match="SIGTERM"), cancel.on_signals():
        signalled()
    # a cancelled run ignores the signals that still come while it exits
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
    with cancel.on_signals():
        cancel.cancel("SIGINT", Sweep)
        os.kill(os.getpid(), signal.SIGINT)  # a repeat: nothing raised, the cleanup goes on
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_without_a_signal_the_handlers_are_put_back() -> None:
    before = {sig: signal.getsignal(sig) for sig in cancel.SIGNALS}
    with cancel.on_signals():
        assert signal.getsignal(signal.SIGTERM) is not before[signal.SIGTERM]
    assert {sig: signal.getsignal(sig) for sig in cancel.SIGNALS} == before


def test_verify_pr_exits_cancelled_and_removes_its_default_out(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    made: list[Path] = []

    def cancelled_run(argv: list[str]) -> int:
        made.append(Path(cli._own_out("verify-pr-")))
        os.kill(os.getpid(), signal.SIGINT)
        threading.Event().wait(5)
        return 0

    monkeypatch.setattr(cli, "_main", cancelled_run)
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read afresh
    assert cli.main(["run"]) == RunExit.CANCELLED
    assert int(CompareExit.CANCELLED) == int(RunExit.CANCELLED) == 7
    assert made and made[0].parent == tmp_path and not made[0].exists()
    assert "verify-pr: cancelled: the run was cancelled by SIGINT" in capsys.readouterr().err
