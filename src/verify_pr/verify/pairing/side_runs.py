"""The whole runs the pairing pairs: before and head, side by side in the compare's pool, and
base's own run when the verdict needs it, before run again when the runs move a code path to
the test side.

- ``start``: before, head (and base's own first job, when the PR edits a test path of base or
  changes a path neither test nor code) start together; base's own run by id is submitted as
  soon as before and head have ended and it is known to be needed. The proof's early re-runs
  may run beside it (``Started.pending``; ``proof.early``) before ``Started.ended`` waits.
- ``place``: the reports place tests where base's rule saw code: such a path goes to the test
  side (before runs again on a rebuilt tree, base's own run again by what it names) or, when
  it is base's code and test at once, is mixed (``split.placed``).
- ``pair_whole``: the pairing of the runs as placed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from verify_pr.runners.base import Runner
from verify_pr.sandbox import tree_files
from verify_pr.verify.coverage.patch import Session
from verify_pr.verify.pairing import bun_markers, unloaded
from verify_pr.verify.pairing.base_own import OwnRun
from verify_pr.verify.pairing.pairing import Pairing, pair
from verify_pr.verify.runs.planner import ComparePool, Planner
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.split.changed import Split
from verify_pr.verify.split.placed import late_tests, linked_to, placed_files
from verify_pr.verify.trees.sides import Sides


@dataclass(frozen=True)
class Whole:
    """The whole runs as the pairing reads them, on ``sides``, for ``paths``."""

    sides: Sides
    paths: Split
    before: SuiteOutcome  # base's code, the PR's tests
    head: SuiteOutcome
    base_own: SuiteOutcome | None  # None: the verdict needs none
    own: OwnRun  # base's own run, to run again by what a new before run names
    # the mixed paths with the test modules that link to them (their tests prove nothing)
    mixed_links: tuple[str, ...] = ()


@dataclass(frozen=True)
class Started:
    """Before and head ended; base's own run submitted when ``own_needed``."""

    sides: Sides
    paths: Split
    before: SuiteOutcome
    head: SuiteOutcome
    own: OwnRun
    own_needed: bool

    def pending(self) -> bool:
        """Base's own run is needed and still running: the proof's re-runs may go beside it."""
        return self.own_needed and not self.own.done()

    def ended(self) -> Whole:
        base_own = self.own.result() if self.own_needed else None
        return Whole(self.sides, self.paths, self.before, self.head, base_own, self.own)


def start(
    planner: Planner, sides: Sides, paths: Split, coverage: Session, pool: ComparePool
) -> Started:
    """Before's and head's whole runs (with the tracer: ``coverage``), and base's own run
    started as soon as it is known to be needed."""
    # the runner is base's; each run's import probe looks at the tree that run runs
    jobs = [
        (sides.before, coverage.plan(planner.plan(sides.before))),
        (sides.after, coverage.plan(planner.plan(sides.after))),
    ]
    # base's own run: a collection of the whole of base, then a run by id of what before and
    # head name (``base_own``); whole where the runner cannot list its tests
    own = OwnRun(planner.plan(sides.base), sides.base, paths.edited, paths.changed)
    first = bool(paths.edited or paths.others)
    if first:
        jobs.append(own.first_job())
    futures = pool.start(jobs)  # the whole runs share the cores when they outnumber them
    if first:
        own.started(futures[2], pool.submit)
    before, head = futures[0].result(), futures[1].result()
    coverage.take_head(head)
    # also needed when head cannot load a test file the PR does not change (``unloaded``), or
    # before cannot load a package (a load failure naming no file): base's own run shows which
    # of its tests passed before the PR, so none of those is taken for a proof (``pairing``)
    needed = bool(
        first or unloaded.untouched(head, paths.changed) or unloaded.unplaced(before, sides.before)
    )
    if needed:
        own.submit((before, head), pool.submit)
    return Started(sides, paths, before, head, own, needed)


def place(
    whole: Whole,
    runner: Runner | None,
    from_base: Sequence[str],
    planner: Planner,
    coverage: Session,
    pool: ComparePool,
    work: Path,
) -> Whole:
    """The runs as placed: a code path a report places tests in moved to the test side
    (before run again on a tree rebuilt with it, and base's own run by what the new before
    names: ``Sides.moving`` keeps base's ``from_base`` paths in it), or mixed."""
    sides, paths, before, base_own = whole.sides, whole.paths, whole.before, whole.base_own
    roots = (sides.base, sides.after)
    outcomes = [before, whole.head, *([base_own] if base_own else [])]
    late = late_tests(paths.code, placed_files(outcomes, roots), sides.base, runner)
    mixed = list(late.mixed)
    if late.moved:
        sides = sides.moving(late.moved, from_base, work)
        coverage.before_tree = sides.before
        paths = paths.moving(late.moved, sides.base)
        plan_again = coverage.plan(planner.plan(sides.before))
        before = pool.run_all([(sides.before, plan_again)])[0]
        # a path moved to the test side: base's own run, by what the new before run names
        # (a whole one already run stands)
        if base_own is None or whole.own.collect is not None:
            again = whole.own.again(paths.edited)
            again.submit((before, whole.head), pool.submit)
            base_own = again.result()
        # what the new before run places in code is code and test at once, whatever it is
        mixed += [p for p in paths.code if p in placed_files([before], roots)]
    mixed = sorted(set(mixed))
    # for NOTHING TO PROVE (``nothing``): the files of base the PR changes that hold tests
    placed = placed_files([before, whole.head, base_own], roots)
    tested = tuple(p for p in paths.changed if p in placed and tree_files.exists(sides.base, p))
    paths = replace(paths, mixed=tuple(mixed), tested=tested)
    # a test module that is a link to a mixed file places its tests under the link's name
    links = tuple(sorted({*mixed, *linked_to(placed, roots, mixed)}))
    return replace(
        whole, sides=sides, paths=paths, before=before, base_own=base_own, mixed_links=links
    )


def pair_whole(whole: Whole, runner: Runner | None) -> Pairing:
    """Before against head (with base's own run), as ``place`` left them."""
    cases = (c.file for c in whole.head.verdict.testcases)
    doubtful = bun_markers.doubtful_under(runner, whole.sides.after, cases)
    return pair(whole.before, whole.head, whole.base_own, whole.mixed_links, doubtful)
