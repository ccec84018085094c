"""The verify step's signals go to the verifier, and the step waits for it to clean up.

GitHub cancels a step with SIGINT, then SIGTERM, then SIGKILL. The verifier runs in a child
process (``commands``): left alone, a SIGTERM would end the step at once and leave the
verifier running the PR's code in its sandboxes with nobody to read its verdict, and
``subprocess.run``'s own answer to a KeyboardInterrupt (SIGKILL to the child) would leave them
behind too. So while :func:`on_signals` is active, a signal that reaches the step while the
verifier runs is sent on to it: the verifier removes its sandboxes and temporary files and
exits CANCELLED (``verify_pr.sandbox.cancel``), and the step, which kept waiting, then raises
:class:`~verify_pr.errors.Cancelled` (exit CANCELLED, ``exit_codes.StepExit``). A signal when
no verifier runs raises it at once. When the whole process group is signalled (a terminal's
Ctrl-C), the verifier gets the signal twice: its repeat handling makes that harmless.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
from collections.abc import Iterator, Mapping
from types import FrameType

from verify_pr.errors import Cancelled
from verify_pr.exit_codes import RunExit

SIGNALS = (signal.SIGINT, signal.SIGTERM)

_children: list[subprocess.Popen[bytes]] = []
_received: list[str] = []


def _handler(signum: int, frame: FrameType | None) -> None:
    first = not _received
    _received.append(signal.Signals(signum).name)
    for child in list(_children):
        with contextlib.suppress(OSError):
            child.send_signal(signum)
    if first and not _children:
        raise Cancelled(f"the verify step was cancelled by {_received[0]}")


def run_child(argv: list[str], env: Mapping[str, str]) -> tuple[int, bytes]:
    """Run the verifier; its exit code and its stdout then stderr. A signal is forwarded to it
    and waited for; the verifier's CANCELLED code, or a signal seen meanwhile, is Cancelled."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(env))
    try:
        _children.append(proc)
        out, err = proc.communicate()
    except BaseException:
        # a signal before the child was known, or a bug: the verifier never outlives the step
        with contextlib.suppress(OSError):
            proc.send_signal(signal.SIGTERM)
        proc.communicate()
        raise
    finally:
        with contextlib.suppress(ValueError):
            _children.remove(proc)
    if _received:
        raise Cancelled(f"the verify step was cancelled by {_received[0]}")
    if proc.returncode == RunExit.CANCELLED:  # compare's too: a signal to the verifier alone
        raise Cancelled("the verifier was cancelled")
    return proc.returncode, out + err


@contextlib.contextmanager
def on_signals() -> Iterator[None]:
    """Forward SIGINT and SIGTERM while the block runs (main thread only), then restore the
    previous handlers, unless a signal came: the next one may land while the step exits, and
    is ignored (as in ``verify_pr.sandbox.cancel.on_signals``)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    previous = {sig: signal.signal(sig, _handler) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_IGN if _received else handler)
