"""The verify step sends a signal on to its verifier child and waits for it (a real child
process stands in for the verifier: it records the signal it got and exits as the verifier
does, 7 cancelled)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from verify_pr.action import forward
from verify_pr.errors import Cancelled
from verify_pr.exit_codes import RunExit, StepExit

CHILD = """
import pathlib, signal, sys, time
record = pathlib.Path(sys.argv[1])
def on(signum, frame):
    time.sleep(0.5)  # its cleanup: the step must wait for it
    record.write_text(signal.Signals(signum).name)
    sys.exit(int(sys.argv[2]))
signal.signal(signal.SIGTERM, on)
signal.signal(signal.SIGINT, on)
pathlib.Path(sys.argv[1] + ".ready").touch()
print("verifier says hi", flush=True)
time.sleep(60)
"""


@pytest.fixture(autouse=True)
def _handlers() -> Iterator[None]:
    saved = {sig: signal.getsignal(sig) for sig in forward.SIGNALS}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def _signal_when_ready(record: Path, sig: signal.Signals) -> threading.Thread:
    def send() -> None:
        ready = Path(f"{record}.ready")
        end = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < end:
            time.sleep(0.02)
        os.kill(os.getpid(), sig)  # to the step: its handler runs on the main thread

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_step_goes_to_the_verifier_and_the_step_waits(
    tmp_path: Path, sig: signal.Signals
) -> None:
    record = tmp_path / "got"
    _signal_when_ready(record, sig)
    argv = [sys.executable, "-c", CHILD, str(record), str(int(RunExit.CANCELLED))]
    with pytest.raises(Cancelled, match=f"cancelled by {sig.name}"), forward.on_signals():
        forward.run_child(argv, dict(os.environ))
    assert record.read_text() == sig.name  # the verifier got it, and ended before the step
    assert signal.getsignal(sig) == signal.SIG_IGN  # what comes next meets no default action


def test_the_step_exits_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from verify_pr import action
    from verify_pr.action import step

    record = tmp_path / "got"
    argv = [sys.executable, "-c", CHILD, str(record), str(int(RunExit.CANCELLED))]
    monkeypatch.setattr(step, "run", lambda env, stream: forward.run_child(argv, env)[0])
    _signal_when_ready(record, signal.SIGTERM)
    assert action.main([], dict(os.environ)) == StepExit.CANCELLED == 7
    assert "::error title=verify-pr cancelled::" in capsys.readouterr().out
    assert record.read_text() == "SIGTERM"


def test_without_a_signal_the_child_runs_to_its_end(tmp_path: Path) -> None:
    """Positive control: the same child, left alone, is the verifier's run as before."""
    script = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(4)"
    with forward.on_signals():
        code, messages = forward.run_child([sys.executable, "-c", script], dict(os.environ))
    assert (code, messages) == (4, b"out\nerr\n")
    assert signal.getsignal(signal.SIGTERM) != signal.SIG_IGN  # put back


def test_a_verifier_cancelled_on_its_own_cancels_the_step(tmp_path: Path) -> None:
    script = f"import sys; sys.exit({int(RunExit.CANCELLED)})"
    with pytest.raises(Cancelled, match="the verifier was cancelled"), forward.on_signals():
        forward.run_child([sys.executable, "-c", script], dict(os.environ))
