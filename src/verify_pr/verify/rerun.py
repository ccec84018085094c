"""The proof's re-runs: each FAIL_TO_PASS test re-run by id, N times on each side.

A test counts as turned green only if it fails every time on base's code (with the PR's
tests) and passes every time on head, apart from the rest of the suite: order-dependent
failures and flakes drop out. The selectable tests run together, one runner process per side
and repetition (each re-run pays a runner's start-up).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from verify_pr.contract import new_report_path
from verify_pr.models.report import FAILING, TestCase, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.verify.select import batch_selector
from verify_pr.verify.suite import SuiteOutcome, SuitePlan
from verify_pr.verify.testcases import is_load_failure, worst_cases

MAX_RERUN_IDS = 10

# Runs each (tree, plan) job in its own sandbox; outcomes in job order.
RunJobs = Callable[[list[tuple[Path, SuitePlan]]], list[SuiteOutcome]]


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
) -> Confirmation:
    """Re-run the first ``MAX_RERUN_IDS`` of the FAIL_TO_PASS tests that can prove the fix
    (``compare.Pairing.proofs``) ``flake_runs`` times per side."""
    if flake_runs == 0:
        return Confirmation()
    if not f2p:
        return Confirmation()
    head_cases = worst_cases(head.verdict)
    cases = [head_cases[test_id] for test_id in f2p[:MAX_RERUN_IDS]]
    together = [c for c in cases if batch_selector(plan.runner, [c]) is not None]
    # an own command (or a name no selector can reach) re-runs whole, one test at a time:
    # flakes still show, an order-dependent failure may not
    groups = [(batch_selector(plan.runner, together) or "", together)] if together else []
    groups += [("", [c]) for c in cases if c not in together]
    outcome: dict[str, _Standing] = {}
    for words, group in groups:
        outcome |= _rerun(plan, words, group, (before_tree, after_tree), flake_runs, run_all)
    flaky = tuple(i for i, v in outcome.items() if v is _Standing.FLAKY)
    unconfirmed = tuple(i for i, v in outcome.items() if v is _Standing.UNCONFIRMED)
    return Confirmation(True, flaky, unconfirmed)


def _rerun(
    plan: SuitePlan,
    words: str,
    cases: list[TestCase],
    trees: tuple[Path, Path],
    flake_runs: int,
    run_all: RunJobs,
) -> dict[str, _Standing]:
    """Each case's standing from ``flake_runs`` runs on each side (before, then after)."""
    sides = ((trees[0], True), (trees[1], False))
    suffix = plan.report_path[plan.report_path.rindex(".") :]
    found = dict.fromkeys((c.id for c in cases), _Standing.CONFIRMED)
    for _ in range(flake_runs):
        open_cases = [c for c in cases if found[c.id] is _Standing.CONFIRMED]
        if not open_cases:
            break
        jobs = []
        for tree, _want in sides:
            path = new_report_path(suffix)
            command = plan.command.replace(plan.report_path, path) + (f" {words}" if words else "")
            jobs.append((tree, SuitePlan(plan.runner, command, path, plan.parse_name)))
        for outcome, (_tree, want_failure) in zip(run_all(jobs), sides, strict=True):
            for case in open_cases:
                if found[case.id] is _Standing.CONFIRMED:
                    found[case.id] = _judge(outcome, case, want_failure)
    return found


def _judge(outcome: SuiteOutcome, case: TestCase, want_failure: bool) -> _Standing:
    if outcome.report is None or outcome.verdict.sandbox.status is not RunStatus.COMPLETED:
        return _Standing.UNCONFIRMED
    status = outcome.report.worst_by_id().get(case.id)
    if status is None and want_failure:
        # its file could not load on base's code: that file's stand-in is the failure (only
        # its own file's: the re-run holds other files' tests too)
        status = next(
            (
                c.status
                for c in outcome.report.testcases
                if c.file == case.file and is_load_failure(c)
            ),
            None,
        )
    if status is None:
        return _Standing.UNCONFIRMED
    failed = status in FAILING
    if failed != want_failure or (not want_failure and status is not TestStatus.PASSED):
        return _Standing.FLAKY
    return _Standing.CONFIRMED
