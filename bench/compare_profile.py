"""Where one compare's wall time goes: a timeline of its phases and of every sandbox run.

    python -m bench.compare_profile compare --git REPO --base SHA --head SHA [compare flags]

Runs ``verify-pr compare`` in this process with the phases of ``verify.compare_run`` wrapped
(the export, the tree checks, the harness scan, the sides built, each sandbox run with its
tree and command's tail, the pairing, the re-runs), then prints one line per phase to stderr:
start and end in seconds since the process started, the duration and the thread. Not a test:
the timeline goes in docs/benchmarks.md beside the figures.
"""

from __future__ import annotations

import functools
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from verify_pr.verify.runs.suite import SuitePlan

T0 = time.perf_counter()
EVENTS: list[tuple[float, float, str, str, str]] = []


def wrap(module: ModuleType | type, name: str, describe: Callable[..., str] | None = None) -> None:
    """Record each call of ``module.name`` (the callers look it up at call time); a class's
    method too (``Planner.run``: the pool calls it through the planner)."""
    inner = getattr(module, name)

    @functools.wraps(inner)
    def timed(*args: object, **kwargs: object) -> object:
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            what = describe(*args, **kwargs) if describe else ""
            thread = threading.current_thread().name
            EVENTS.append((start - T0, time.perf_counter() - T0, thread, name, what))

    setattr(module, name, timed)


def _run_what(_planner: object, job: tuple[Path, SuitePlan]) -> str:
    tree, plan = job
    return f"{tree.name} ...{plan.command[-60:]}"


def hooks() -> list[tuple[ModuleType | type, str, Callable[..., str] | None]]:
    """What the timeline records: each phase where its caller looks it up (a name imported
    into ``compare_run`` is wrapped there). tests/unit/test_bench_hooks.py checks each exists,
    so a restructured compare fails a test instead of this tool."""
    from verify_pr.sandbox import guard
    from verify_pr.verify import compare_run
    from verify_pr.verify.decision import decide
    from verify_pr.verify.harness import closure
    from verify_pr.verify.pairing import side_runs
    from verify_pr.verify.proof import early, rerun
    from verify_pr.verify.runs.planner import Planner
    from verify_pr.verify.trees import sides

    return [
        (compare_run, "export", None),
        (sides, "build", None),
        (Planner, "run", _run_what),
        (guard, "check_tree", lambda tree: tree.name),
        (closure, "scan", None),
        (side_runs, "pair_whole", None),
        (decide, "build_result", None),
        (rerun, "confirm", None),
        (early, "start", None),
        (early, "kept", None),
    ]


def main(argv: list[str]) -> int:
    from verify_pr.verify import cli

    for module, name, describe in hooks():
        wrap(module, name, describe)
    code = cli.main(argv)
    for start, end, thread, name, what in sorted(EVENTS):
        print(
            f"{start:7.2f} {end:7.2f} {end - start:6.2f}  {thread[-20:]:20} {name:12} {what}",
            file=sys.stderr,
        )
    print(f"total {time.perf_counter() - T0:.2f} s, exit {code}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
