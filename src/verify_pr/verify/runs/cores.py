"""The cores this job really has: its CPU affinity, cut down by a cgroup CPU quota.

``os.cpu_count`` is the machine's; a container or a CI runner limited by its cgroup may run on
every core (its affinity) yet only have the time of fewer (``cpu.max`` in cgroup v2,
``cpu.cfs_quota_us`` over ``cpu.cfs_period_us`` in v1). A quota of 1.5 cores gives one
sandbox at a time room for one and a half: the figure is rounded down, never below one.

The quota is the smallest one on the path from the process's cgroup up to the root (each
level limits everything below it). The paths are a seam (``CgroupPaths``): tests give a fake
file tree. Anything unreadable or malformed counts as no quota: the affinity stands.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

_Reader = Callable[[Path], float | None]


@dataclass(frozen=True)
class CgroupPaths:
    proc_cgroup: Path = Path("/proc/self/cgroup")  # which cgroup this process is in
    root: Path = Path("/sys/fs/cgroup")  # where the cgroup file systems are mounted


def affinity() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


def quota(paths: CgroupPaths = CgroupPaths()) -> float | None:
    """The CPU quota in cores of the process's cgroup and its parents, the smallest; None when
    there is none (or it cannot be read)."""
    found: list[float] = []
    for line in _read(paths.proc_cgroup).splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # cgroup v2: the unified hierarchy
            found += _limits(paths.root, path, _v2)
        elif "cpu" in controllers.split(","):  # cgroup v1: the cpu controller's hierarchy
            for mount in (paths.root / "cpu", paths.root / "cpu,cpuacct", paths.root):
                if (mount / "cpu.cfs_quota_us").exists():
                    found += _limits(mount, path, _v1)
                    break
    return min(found) if found else None


def usable(paths: CgroupPaths = CgroupPaths(), cores: int | None = None) -> int:
    """The affinity's cores, no more than the cgroup quota allows (rounded down, at least 1)."""
    have = affinity() if cores is None else cores
    limit = quota(paths)
    if limit is None:
        return max(1, have)
    return max(1, min(have, int(limit)))


def _limits(mount: Path, path: str, read: _Reader) -> list[float]:
    """Each level's quota from the process's cgroup up to the mount's root."""
    rel = PurePosixPath(path)
    if not rel.is_absolute() or ".." in rel.parts:
        return []
    found = []
    here = rel
    while True:
        limit = read(mount / str(here).lstrip("/"))
        if limit is not None:
            found.append(limit)
        if here == here.parent:
            return found
        here = here.parent


def _v2(folder: Path) -> float | None:
    """``cpu.max``: "max 100000" (none) or "<quota> <period>" in microseconds."""
    words = _read(folder / "cpu.max").split()
    if len(words) != 2 or words[0] == "max":
        return None
    return _ratio(words[0], words[1])


def _v1(folder: Path) -> float | None:
    """``cpu.cfs_quota_us`` (-1: none) over ``cpu.cfs_period_us``."""
    return _ratio(_read(folder / "cpu.cfs_quota_us").strip(), _read(folder / "cpu.cfs_period_us"))


def _ratio(quota_us: str, period_us: str) -> float | None:
    try:
        q, p = int(quota_us), int(period_us.strip())
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii", errors="replace")[:4096]
    except OSError:
        return ""
