"""The proof's re-runs: each FAIL_TO_PASS test re-run by id, N times on each side.

A test counts as turned green only if it fails every time on base's code (with the PR's
tests) and passes every time on head, apart from the rest of the suite: order-dependent
failures and flakes drop out. The selectable tests run together, and the N repetitions of one
side run in one sandbox (``repeat``: each on a fresh copy of the tree, each with its own
report), both sides side by side: two sandboxes for the whole proof, not two per repetition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from verify_pr.errors import ReportError
from verify_pr.models.report import FAILING, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.verify.repeat import Repeated, repeated, split
from verify_pr.verify.select import batch_selector
from verify_pr.verify.suite import SuiteOutcome, SuitePlan, parse_report
from verify_pr.verify.testcases import is_load_failure, worst_cases

MAX_RERUN_IDS = 10

# Runs each (tree, plan, timeout in seconds) job in its own sandbox; outcomes in job order.
RunJobs = Callable[[list[tuple[Path, SuitePlan, int]]], list[SuiteOutcome]]


class _Standing(StrEnum):
    CONFIRMED = "confirmed"
    FLAKY = "flaky"
    UNCONFIRMED = "unconfirmed"


@dataclass(frozen=True)
class Confirmation:
    checked: bool = False
    flaky: tuple[str, ...] = ()
    unconfirmed: tuple[str, ...] = ()


def confirm(
    plan: SuitePlan,
    before_tree: Path,
    after_tree: Path,
    head: SuiteOutcome,
    f2p: Sequence[str],
    flake_runs: int,
    run_all: RunJobs,
    timeout_s: int,
) -> Confirmation:
    """Re-run the first ``MAX_RERUN_IDS`` of the FAIL_TO_PASS tests that can prove the fix
    (``compare.Pairing.proofs``) ``flake_runs`` times per side."""
    if flake_runs == 0:
        return Confirmation()
    if not f2p:
        return Confirmation()
    head_cases = worst_cases(head.verdict)
    cases = [head_cases[test_id] for test_id in f2p[:MAX_RERUN_IDS]]
    trees = (before_tree, after_tree)
    together = [c for c in cases if batch_selector(plan.runner, [c]) is not None]
    # an own command (or a name no selector can reach) re-runs whole, one test at a time:
    # flakes still show, an order-dependent failure may not
    groups = [(batch_selector(plan.runner, together) or "", together)] if together else []
    groups += [("", [c]) for c in cases if c not in together]
    loops = [repeated(plan, words, flake_runs, timeout_s) for words, _group in groups]
    jobs = [(tree, loop.plan, loop.timeout_s) for loop in loops for tree in trees]
    done = run_all(jobs)  # every group's two sandboxes at once, as the machine has room
    outcome: dict[str, _Standing] = {}
    for n, (loop, (_words, group)) in enumerate(zip(loops, groups, strict=True)):
        before_runs, after_runs = (
            _reports(o, loop, plan, t) for o, t in zip(done[2 * n : 2 * n + 2], trees, strict=True)
        )
        outcome |= _standings(group, before_runs, after_runs)
    flaky = tuple(i for i, v in outcome.items() if v is _Standing.FLAKY)
    unconfirmed = tuple(i for i, v in outcome.items() if v is _Standing.UNCONFIRMED)
    return Confirmation(True, flaky, unconfirmed)


def _standings(
    cases: list[TestCase],
    before_runs: list[TestReport | None],
    after_runs: list[TestReport | None],
) -> dict[str, _Standing]:
    """Each case's standing from its repetitions, judged in the order they used to run (each
    repetition before, then after): a case's first failed check is its standing."""
    found = dict.fromkeys((c.id for c in cases), _Standing.CONFIRMED)
    for before_report, after_report in zip(before_runs, after_runs, strict=True):
        for report, want_failure in ((before_report, True), (after_report, False)):
            for case in cases:
                if found[case.id] is _Standing.CONFIRMED:
                    found[case.id] = _judge(report, case, want_failure)
    return found


def _reports(
    outcome: SuiteOutcome, loop: Repeated, plan: SuitePlan, tree: Path
) -> list[TestReport | None]:
    """Each repetition's parsed report (None: missing, unreadable, or the sandbox did not
    complete)."""
    spool = outcome.run.report
    if outcome.run.result.status is not RunStatus.COMPLETED or spool is None:
        return [None] * loop.times
    with spool.open() as handle:
        data = handle.read()
    found: list[TestReport | None] = []
    for part in split(data, loop):
        try:
            found.append(None if part is None else parse_report(plan, part, tree))
        except ReportError:
            found.append(None)
    return found


def _judge(report: TestReport | None, case: TestCase, want_failure: bool) -> _Standing:
    if report is None:
        return _Standing.UNCONFIRMED
    status = report.worst_by_id().get(case.id)
    if status is None and want_failure:
        # its file could not load on base's code: that file's stand-in is the failure (only
        # its own file's: the re-run holds other files' tests too)
        status = next(
            (c.status for c in report.testcases if c.file == case.file and is_load_failure(c)),
            None,
        )
    if status is None:
        return _Standing.UNCONFIRMED
    failed = status in FAILING
    if failed != want_failure or (not want_failure and status is not TestStatus.PASSED):
        return _Standing.FLAKY
    return _Standing.CONFIRMED
