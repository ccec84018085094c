"""The floor of one compare: the CPU its verdict's sandbox runs need, divided by the cores.

    python -m bench.compare_floor CORES compare --git REPO --base SHA --head SHA [compare flags]

Runs ``verify-pr compare`` in this process with its pool one sandbox wide (``parallel.
pool_width`` patched to 1), so every sandbox run it makes (before, head, base's own collection
and run by id, each re-run) runs alone, and times each one (``Planner.run``, the pool's one way
into a sandbox). A run alone at its ``--cpus 1`` keeps one core busy for its wall time (the
suites are CPU-bound), so the sum of the walls is the CPU the verdict's runs need; the floor is
that sum over ``CORES``, and no less than the longest single run (a run cannot be split across
cores). Host work (export, checks, pairing) is left out: the floor is what no schedule can beat.
Prints one JSON line:
``{"runs": [[seconds, what], ...], "cpu": s, "floor": s}``. Not a test: compare_bench uses it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan


def timed_method() -> tuple[type, str]:
    """The method every sandbox run of a compare goes through: the pool's run function."""
    from verify_pr.verify.runs.planner import Planner

    return Planner, "run"


def main(argv: list[str]) -> int:
    from verify_pr.verify import cli
    from verify_pr.verify.runs import parallel
    from verify_pr.verify.runs.planner import Planner

    cores = float(argv[0])
    runs: list[tuple[float, str]] = []
    owner, name = timed_method()
    inner = getattr(owner, name)

    def timed(planner: Planner, job: tuple[Path, SuitePlan]) -> SuiteOutcome:
        start = time.perf_counter()
        try:
            return inner(planner, job)
        finally:
            tree, plan = job
            runs.append((time.perf_counter() - start, f"{tree.name} ...{plan.command[-50:]}"))

    setattr(owner, name, timed)
    parallel.pool_width = lambda *_args, **_kw: 1  # type: ignore[assignment]
    code = cli.main(argv[1:])
    cpu = sum(s for s, _ in runs)
    floor = max([cpu / cores, *(s for s, _ in runs)]) if runs else 0.0
    print(json.dumps({"runs": runs, "cpu": cpu, "floor": floor, "exit": code}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
