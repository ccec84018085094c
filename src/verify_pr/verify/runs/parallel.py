"""Independent sandbox runs side by side, as many at once as the machine has room for."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import Generic, TypeVar

from verify_pr.sandbox.resources import Resources

SANDBOX_MEMORY_BUDGET = 1 << 30  # a sandbox's 512 MiB cap, plus the runner and the page cache

Job = TypeVar("Job")
Outcome = TypeVar("Outcome")


def parallelism(jobs: int, resources: Resources, cores: int, available_bytes: int) -> int:
    """How many sandboxes at once, each within its own caps: as many as the cores hold at the
    run's CPUs each, and the free memory at twice the run's memory each (its cap, plus the
    runner and the page cache). Unknown memory (0) means one at a time."""
    by_cores = max(1, int(cores // max(1.0, resources.cpus)))
    return max(1, min(jobs, by_cores, _by_memory(resources, available_bytes)))


def pool_width(together: int, resources: Resources, cores: int, available_bytes: int) -> int:
    """How many sandboxes a compare's pool runs at once: :func:`parallelism`'s figure, raised
    to ``together`` (the whole-suite runs it starts at once) when the machine runs more than
    one sandbox at a time and the memory holds them all.

    Queued, three whole runs on two cores take two runs' wall time: the third starts when one
    of the first two ends and runs alone while the other core idles. Started together they
    share the cores and all end after 1.5 runs' time. Each run does the same work within its
    own ``--cpus`` cap, only slower while they share; one core gains nothing from sharing."""
    width = parallelism(1 << 10, resources, cores, available_bytes)
    if width < 2:
        return width
    return max(width, min(together, _by_memory(resources, available_bytes)))


def _by_memory(resources: Resources, available_bytes: int) -> int:
    budget = max(SANDBOX_MEMORY_BUDGET, 2 * resources.memory_bytes)
    return available_bytes // budget


def usable_cores() -> int:
    """The cores this job really has: its affinity, within its cgroup's CPU quota (``cores``)."""
    from verify_pr.verify.runs import cores

    return cores.usable()


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


class SandboxPool(Generic[Job, Outcome]):
    """One pool for every sandbox of a compare, whatever phase asks for it: a run starts as
    soon as its inputs are known and a slot is free (base's own run beside the proof's
    re-runs), never more at once than :func:`pool_width` allows for the machine. The first
    batch (:meth:`start`: the whole-suite runs) sets the width. Leaving the block waits for
    every started run and cancels the queued ones: no sandbox outlives it."""

    def __init__(self, run: Callable[[Job], Outcome], resources: Resources) -> None:
        self._run = run
        self._resources = resources
        self._pool: ThreadPoolExecutor | None = None

    def start(self, jobs: Sequence[Job]) -> list[Future[Outcome]]:
        """The first batch, all started at once when the machine has room (``pool_width``)."""
        if self._pool is None:
            self._pool = self._executor(len(jobs))
        return [self.submit(job) for job in jobs]

    def submit(self, job: Job) -> Future[Outcome]:
        if self._pool is None:
            self._pool = self._executor(1)
        return self._pool.submit(self._run, job)

    def run_all(self, jobs: Sequence[Job]) -> list[Outcome]:
        """Each job, side by side when there is room; results in job order (an error is
        raised after every job of this call has ended)."""
        futures = [self.submit(job) for job in jobs]
        for future in futures:
            future.exception()  # waits: none is left running when one failed
        return [future.result() for future in futures]

    def _executor(self, together: int) -> ThreadPoolExecutor:
        width = pool_width(together, self._resources, usable_cores(), available_bytes())
        return ThreadPoolExecutor(width, thread_name_prefix="verify-pr-compare")

    def __enter__(self) -> SandboxPool[Job, Outcome]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
