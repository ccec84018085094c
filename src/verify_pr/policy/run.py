"""A run's verdict against its own sandbox result, totals and testcases (``verify.rules.judge``
decides it; these are the claims a forged ``verdict.json`` cannot make).

Each rule is a ``core.Rule`` over a ``Run`` (the verdict file and what to call it in a
message); ``RUN`` holds them all, for a run artifact and for each run a comparison embeds.
A claim weaker than the evidence (NOT PROVEN where the data cannot tell) is left alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from verify_pr.models.report import EXECUTED, FAILING, TestStatus, Totals, is_load_failure
from verify_pr.models.sandbox import ReportStatus, RunStatus
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.policy.cases import worst_by_id
from verify_pr.policy.core import AllOf, Rule
from verify_pr.policy.coverage import coverage_problems
from verify_pr.policy.whole import totals_problems


@dataclass(frozen=True)
class Run:
    """One run's verdict file, what a message calls it ("the run", "the head run"), and its
    every result when it is wider than its verdict file (its listing, ``policy.whole``)."""

    verdict: VerdictFile
    side: str = "the run"
    listing: Mapping[str, TestStatus] | None = None


def _coverage(run: Run) -> list[str]:
    return coverage_problems(run.verdict.patch_coverage, run.side, with_proof=False)


def _totals(run: Run) -> list[str]:
    verdict, side = run.verdict, run.side
    if verdict.totals is None and verdict.testcases:
        return [f"{side} lists testcases but no totals"]
    if run.listing is not None:  # a wide run's totals count its whole report
        return totals_problems(verdict, run.listing, side)
    if verdict.totals is not None and verdict.totals != Totals.count(verdict.testcases):
        return [f"{side}'s totals do not match its testcases"]
    return []


def _blocked(run: Run) -> list[str]:
    verdict, result = run.verdict, run.verdict.sandbox
    if (verdict.verdict is Verdict.BLOCKED) != (result.status is RunStatus.BLOCKED):
        return [
            f"{run.side} claims {verdict.verdict.value} but its sandbox status is "
            f"{result.status.value}"
        ]
    return []


def _ran(run: Run) -> list[str]:
    """PASS and FAIL are said of a completed run with a report only."""
    verdict, result, side = run.verdict, run.verdict.sandbox, run.side
    if verdict.verdict not in (Verdict.PASS, Verdict.FAIL):
        return []
    claimed = verdict.verdict.value
    problems = []
    if result.status is not RunStatus.COMPLETED:
        problems.append(f"{side} claims {claimed} but its sandbox status is {result.status}")
    if result.report is not ReportStatus.RETURNED or verdict.totals is None:
        problems.append(f"{side} claims {claimed} without a report")
    return problems


def _passed(run: Run) -> list[str]:
    verdict, side = run.verdict, run.side
    if verdict.verdict is not Verdict.PASS:
        return []
    statuses = worst_by_id(verdict.testcases).values()
    failing = sum(1 for s in statuses if s in FAILING)
    problems = []
    if failing:
        problems.append(f"{side} claims PASS with {failing} failed or errored test(s)")
    if not any(s in EXECUTED for s in statuses):
        problems.append(f"{side} claims PASS but executed zero tests")
    if verdict.sandbox.exit_code != 0:
        problems.append(f"{side} claims PASS but the runner exited {verdict.sandbox.exit_code}")
    return problems


def _failed(run: Run) -> list[str]:
    verdict = run.verdict
    if verdict.verdict is not Verdict.FAIL:
        return []
    if not any(s in FAILING for s in worst_by_id(verdict.testcases).values()):
        return [f"{run.side} claims FAIL without a failed or errored test"]
    return []


def _not_proven(run: Run) -> list[str]:
    verdict, result = run.verdict, run.verdict.sandbox
    failing = any(s in FAILING for s in worst_by_id(verdict.testcases).values())
    if (
        verdict.verdict is Verdict.NOT_PROVEN
        and failing
        and result.status is RunStatus.COMPLETED
        and result.report is ReportStatus.RETURNED
        and not only_load_failures(verdict)
    ):
        return [f"{run.side} claims NOT_PROVEN although its report shows failing tests"]
    return []


def only_load_failures(verdict: VerdictFile) -> bool:
    """Every failing testcase is a test file that could not load: the verifier says NOT PROVEN
    when each names a module the tree lacks (the image's gap, ``verify.missing_deps``). Which
    module is not in verdict.json for pytest, so this side cannot re-check it; a forgery that
    uses this can only turn such a FAIL neutral, as the PR's own code could in the sandbox."""
    failing = [c for c in verdict.testcases if c.status in FAILING]
    return bool(failing) and all(is_load_failure(c) for c in failing)


RUN: AllOf[Run] = AllOf(
    (
        Rule("run.coverage", _coverage),
        Rule("run.totals", _totals),
        Rule("run.blocked", _blocked),
        Rule("run.ran", _ran),
        Rule("run.passed", _passed),
        Rule("run.failed", _failed),
        Rule("run.not_proven", _not_proven),
    )
)
"""What every run's verdict file must agree with."""
