"""A removed test is judged by running it, not by its absence: the fourth, small run.

Each test of base that is gone on head (``pairing.Findings.gone``: deleted, renamed, or a
parametrized case whose id holds a value the PR changed) is run by id from base's version of
its file over head's code (the merged tree, base's harness too under --strict-harness), in
one sandbox run of its own, only when there is such a test. What it showed is judged in
``models.removed`` (passed there: its removal hides nothing; failed there: the PR removed a
test its code breaks, or changed an expectation where the value is part of the id). A test
that cannot run there (its file needs a helper the PR deleted, an id no selector reaches)
stays gone, as before this run existed.

pytest, jest, vitest and bun (the selectors the proof's re-runs use, ``select``); an own
command runs no test by id: its gone tests stay gone.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from verify_pr.contract import new_report_path
from verify_pr.models.removed import RemovedStanding, RemovedTest, judge
from verify_pr.models.report import TestCase
from verify_pr.models.sandbox import RunStatus
from verify_pr.runners.base import Argv
from verify_pr.sandbox import tree_files
from verify_pr.verify.runs.select import batch_selector, modules_in
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan
from verify_pr.verify.runs.testcases import statuses, worst_cases
from verify_pr.verify.trees.overlay import overlay_paths

MAX_REMOVED_IDS = 100  # run by id in one process; any more stay gone

RunJobs = Callable[[list[tuple[Path, SuitePlan]]], list[SuiteOutcome]]


@dataclass(frozen=True)
class Removed:
    outcome: SuiteOutcome | None = None  # the run (None: nothing could be run)
    tests: tuple[RemovedTest, ...] = ()  # every gone test, with its standing


def judge_removed(
    plan: SuitePlan,
    base_tree: Path,
    after_tree: Path,
    work: Path,
    gone: Sequence[str],
    sides: tuple[SuiteOutcome | None, SuiteOutcome],
    proofs: Sequence[str],
    code: Sequence[str],
    run_all: RunJobs,
) -> Removed:
    """Run the ``gone`` tests (their cases from ``sides``: base's own run, else before) from
    base's files on a copy of ``after_tree``, and judge each. A test in one of the PR's
    ``code`` paths (a doctest) is not run: base's version of its file is base's code."""
    if not gone:
        return Removed()
    base_own, before = sides
    of_base = statuses(base_own.verdict) if base_own else {}
    known = {**worst_cases(before.verdict), **(worst_cases(base_own.verdict) if base_own else {})}
    cases = _runnable(plan, base_tree, [known[i] for i in gone if i in known], set(code))
    outcome = None
    if cases:
        tree = shutil.copytree(after_tree, work / "removed", symlinks=True)
        overlay_paths(base_tree, tree, sorted({c.file or "" for c in cases}))
        from verify_pr.sandbox.guard import check_tree

        check_tree(tree)
        argv = batch_selector(plan.runner, cases, modules_in(tree))
        if argv is not None:
            outcome = run_all([(tree, _selected(plan, argv))])[0]
    on_head = {}
    completed = outcome is not None and outcome.verdict.sandbox.status is RunStatus.COMPLETED
    if outcome is not None and outcome.report is not None and completed:
        ran = statuses(outcome.verdict)
        on_head = {c.id: ran[c.id] for c in cases if c.id in ran}
    return Removed(outcome, judge(gone, on_head, proofs, of_base))


def _runnable(
    plan: SuitePlan, base_tree: Path, cases: list[TestCase], code: set[str]
) -> list[TestCase]:
    """The cases a pytest selector reaches, in a plain file of base's tree that is none of
    the PR's code paths."""
    if plan.runner is None:  # an own command: no selection by id
        return []
    found = [
        c
        for c in cases
        if c.file
        and c.file not in code
        and tree_files.is_plain_file(base_tree, c.file)
        and batch_selector(plan.runner, [c], modules_in(base_tree)) is not None
    ]
    return found[:MAX_REMOVED_IDS]


def _selected(plan: SuitePlan, argv: Argv) -> SuitePlan:
    suffix = plan.report_path[plan.report_path.rindex(".") :]
    return plan.reporting_to(new_report_path(suffix)).adding(argv)


BROKEN = (
    "test(s) of base the PR removes or renames fail on its code (run by id from base's "
    "version of their file on head)"
)


def broken(gone: Sequence[str], tests: Sequence[RemovedTest]) -> list[str]:
    """The gone ids that failed on head, no expectation change of theirs shown."""
    failed = {t.id for t in tests if t.standing is RemovedStanding.FAILED}
    return [i for i in gone if i in failed]


def still_gone(gone: Sequence[str], tests: Sequence[RemovedTest]) -> list[str]:
    """The gone ids no run on head judged (not run, or not judged at all)."""
    judged = {t.id for t in tests if t.standing is not RemovedStanding.NOT_RUN}
    return [i for i in gone if i not in judged]


def none_removed(tests: Sequence[RemovedTest]) -> str:
    """The VERIFIED reason's claim about removed tests: none, or none that it says next."""
    return "" if tests else "none removed, "


def note(tests: Sequence[RemovedTest]) -> str:
    """What a VERIFIED reason says of the removed tests it let stand: each must be seen."""
    passed = [t.id for t in tests if t.standing is RemovedStanding.PASSED]
    changed = [t.id for t in tests if t.standing is RemovedStanding.CHANGED]
    text = ""
    if passed:
        text += (
            f"; {len(passed)} test(s) of base the PR removes or renames pass on its code, "
            f"run from base's file ({_ids(passed)})"
        )
    if changed:
        text += (
            f"; changed expectations: {len(changed)} test(s) of base fail on the PR's code "
            f"and a new case of the same test proves the fix, review them ({_ids(changed)})"
        )
    return text


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(i[:150] for i in ids[:3])
    return shown + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
