"""A cancelled run ends cleanly: SIGINT or SIGTERM removes every sandbox this process started.

A job cancel, ``concurrency: cancel-in-progress`` on a new push or a runner shutdown sends
SIGINT, then SIGTERM, then SIGKILL a few seconds apart. The entry point (the main thread)
installs :func:`on_signals`. The first signal:

1. sets the process's cancelled flag: from then on no sandbox starts (the engine checks it
   before it creates a container, after it registers one, and in its stream loop);
2. kills and removes, by full id, every live container this process created (the engine
   registers each one here while it exists), so the runs still streaming see their stream end
   at once, whatever thread they run on;
3. removes the temporary trees the entry point made for its own output (:func:`discard`);
4. raises :class:`~verify_pr.errors.Cancelled` in the main thread: a wait on a pool's future
   ends, the ``finally`` blocks remove the work trees, the spools are closed, and the entry
   point exits with its CANCELLED code (``exit_codes``).

A repeat signal (GitHub's SIGTERM after its SIGINT) sweeps again, in case a container was
being created during the first sweep, but raises nothing: the cleanup it lands in finishes.
Only SIGKILL, which no process can catch, leaves containers behind; the next run's reaper
(``reaper.py``) removes those.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Protocol

from verify_pr.errors import Cancelled, SandboxBlocked

SIGNALS = (signal.SIGINT, signal.SIGTERM)

# One process, one run: the state is the process's. An RLock: a signal handler runs on the
# main thread between two bytecodes, possibly while that thread holds the lock.
_lock = threading.RLock()
_live: set[str] = set()
_trees: list[Path] = []
_reason: list[str] = []  # empty: not cancelled; else the signal's name


class SweepApi(Protocol):
    """The sweep's own connection (the engine's are busy streaming): a forced remove."""

    def remove(self, container_id: str) -> None: ...

    def close(self) -> None: ...


def _sweep_client() -> SweepApi:
    from verify_pr.sandbox.docker_api import DockerApi

    return DockerApi()


def requested() -> bool:
    return bool(_reason)


def check() -> None:
    """Raise :class:`Cancelled` once a signal has cancelled the run."""
    if _reason:
        raise Cancelled(f"the run was cancelled by {_reason[0]}")


def enter(container_id: str) -> None:
    """Register a container this process created; raise :class:`Cancelled` (the caller removes
    it) when the run is already cancelled, so none is created past a sweep and left behind."""
    with _lock:
        check()
        _live.add(container_id)


def leave(container_id: str) -> None:
    with _lock:
        _live.discard(container_id)


def discard(tree: Path) -> None:
    """A temporary tree the entry point made for its output: removed if the run is cancelled."""
    with _lock:
        _trees.append(tree)


def cancel(reason: str, client: Callable[[], SweepApi] = _sweep_client) -> list[str]:
    """Set the flag, remove every live container and the trees to discard; return the ids
    removed. Best effort per container: one the daemon cannot remove does not stop the rest."""
    with _lock:
        if not _reason:
            _reason.append(reason)
        ids = sorted(_live)
        trees = list(_trees)
    removed: list[str] = []
    if ids:
        with contextlib.suppress(SandboxBlocked):
            api = client()
            try:
                for container_id in ids:
                    try:
                        api.remove(container_id)
                    except SandboxBlocked:
                        continue  # e.g. a removal already under way
                    removed.append(container_id)
            finally:
                with contextlib.suppress(Exception):
                    api.close()
    for tree in trees:
        shutil.rmtree(tree, ignore_errors=True)
    return removed


def _handler(signum: int, frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    with _lock:
        first = not _reason
        if first:
            _reason.append(name)
    cancel(name)
    if first:
        check()  # raises in the main thread: its waits end and its finally blocks run


def reset() -> None:
    """Forget the state (tests run several entry points in one process)."""
    with _lock:
        _live.clear()
        _trees.clear()
        _reason.clear()


@contextlib.contextmanager
def on_signals() -> Iterator[None]:
    """Handle SIGINT and SIGTERM as a cancel while the block runs; restore the previous
    handlers after, unless the run was cancelled: then GitHub's next signal may still come
    while the process exits (its exit handlers close the spools), so both are ignored from
    then on (the interpreter's teardown puts back the default action of a handler of its own,
    which would end the process by that signal instead of its exit code, but not SIG_IGN).
    Only the main thread can install a handler: elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    reset()
    previous = {sig: signal.signal(sig, _handler) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_IGN if requested() else handler)
