"""Remove sandbox containers whose runner is gone (it was SIGKILLed, or its host crashed).

Every container carries ``io.verify-pr.owner=<hostname>:<pid>``. At the start of each run one
list call, filtered by that label, finds them; a container whose owner is on this host and
whose pid no longer exists is an orphan and is removed with force. Containers of other hosts
(a shared daemon) and of live runners are left alone. A runner pid reused by an unrelated
process keeps its orphan until that process ends: the container's own in-container timeout
still ends the check, so the orphan holds only a stopped container until then.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from verify_pr.errors import SandboxBlocked
from verify_pr.sandbox.container_api import ReapApi
from verify_pr.sandbox.policy import LABEL_OWNER


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return True  # never a real runner: leave it alone rather than guess
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def orphan_of(owner: str, hostname: str, alive: Callable[[int], bool]) -> bool:
    host, sep, pid = owner.rpartition(":")
    if not sep or host != hostname or not pid.isdigit():
        return False
    return not alive(int(pid))


def reap_orphans(
    api: ReapApi, hostname: str | None = None, alive: Callable[[int], bool] = pid_alive
) -> list[str]:
    """Remove this host's orphaned sandbox containers; return their ids. Best effort: a
    failure here never stops the run (the run's own calls report a broken daemon)."""
    hostname = hostname if hostname is not None else os.uname().nodename
    removed: list[str] = []
    try:
        owned = api.list_owned()
    except SandboxBlocked:
        return removed
    for container_id, owner in owned:
        if orphan_of(owner, hostname, alive):
            try:
                api.remove(container_id)
            except SandboxBlocked:
                continue
            removed.append(container_id)
    return removed


__all__ = ["LABEL_OWNER", "orphan_of", "pid_alive", "reap_orphans"]
