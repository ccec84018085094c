"""The proof's re-runs: each FAIL_TO_PASS test re-run by id, N times on each side.

A test counts as turned green only if it fails every time on base's code (with the PR's
tests) and passes every time on head, apart from the rest of the suite: order-dependent
failures and flakes drop out. The selectable tests run together, one runner process per side
and repetition (each re-run pays a runner's start-up). Every repetition of both sides is
handed to the sandboxes at once, so none waits for the slowest run of the one before it
(a round used to wait for both of its sides): the same runs, judged in the same order.
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
    trees = (before_tree, after_tree)
    planned = [_jobs(plan, words, trees, flake_runs) for words, _group in groups]
    # every group's every repetition at once: the sandboxes take them as slots free up
    outcomes = iter(run_all([job for jobs in planned for job, _want in jobs]))
    outcome: dict[str, _Standing] = {}
    for (_words, group), jobs in zip(groups, planned, strict=True):
        runs = [(next(outcomes), want) for _job, want in jobs]
        outcome |= _standings(group, runs)
    flaky = tuple(i for i, v in outcome.items() if v is _Standing.FLAKY)
    unconfirmed = tuple(i for i, v in outcome.items() if v is _Standing.UNCONFIRMED)
    return Confirmation(True, flaky, unconfirmed)


def _jobs(
    plan: SuitePlan, words: str, trees: tuple[Path, Path], flake_runs: int
) -> list[tuple[tuple[Path, SuitePlan], bool]]:
    """``flake_runs`` runs of the selection per side, repetition by repetition, before then
    after, each with its own report path; with each, whether it must fail (before)."""
    suffix = plan.report_path[plan.report_path.rindex(".") :]
    jobs = []
    for _ in range(flake_runs):
        for tree, want_failure in ((trees[0], True), (trees[1], False)):
            path = new_report_path(suffix)
            command = plan.command.replace(plan.report_path, path) + (f" {words}" if words else "")
            jobs.append(
                ((tree, SuitePlan(plan.runner, command, path, plan.parse_name)), want_failure)
            )
    return jobs


def _standings(
    cases: list[TestCase], runs: list[tuple[SuiteOutcome, bool]]
) -> dict[str, _Standing]:
    """Each case keeps the first standing that is not CONFIRMED, in the order of the runs."""
    found = dict.fromkeys((c.id for c in cases), _Standing.CONFIRMED)
    for outcome, want_failure in runs:
        for case in cases:
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
