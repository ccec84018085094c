"""Independent sandbox runs side by side, as many at once as the machine has room for."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from verify_pr.sandbox.resources import Resources

SANDBOX_MEMORY_BUDGET = 1 << 30  # a sandbox's 512 MiB cap, plus the runner and the page cache

Job = TypeVar("Job")
Outcome = TypeVar("Outcome")


def parallelism(jobs: int, resources: Resources, cores: int, available_bytes: int) -> int:
    """How many sandboxes at once, each within its own caps: as many as the cores hold at the
    run's CPUs each, and the free memory at twice the run's memory each (its cap, plus the
    runner and the page cache). Unknown memory (0) means one at a time."""
    by_cores = max(1, int(cores // max(1.0, resources.cpus)))
    budget = max(SANDBOX_MEMORY_BUDGET, 2 * resources.memory_bytes)
    return max(1, min(jobs, by_cores, available_bytes // budget))


def usable_cores() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1


def available_bytes() -> int:
    """``MemAvailable`` from ``/proc/meminfo``; 0 when it cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def run_side_by_side(
    run: Callable[[Job], Outcome], jobs: Sequence[Job], resources: Resources
) -> list[Outcome]:
    """Each job through ``run``, in parallel when there is room; results in job order (an
    error is raised after every job has ended: no sandbox is left running behind it)."""
    workers = parallelism(len(jobs), resources, usable_cores(), available_bytes())
    if workers == 1:
        return [run(job) for job in jobs]
    with ThreadPoolExecutor(workers, thread_name_prefix="verify-pr-compare") as pool:
        return list(pool.map(run, jobs))
