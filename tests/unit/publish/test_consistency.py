"""``publish.consistency``: every verdict, told honestly, raises no problem; the same data under
any other claim that decides a conclusion does."""

from __future__ import annotations

import pytest

from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.policy.cases import worst_by_id
from verify_pr.publish.consistency import run_problems


def _case(status: TestStatus, name: str = "t") -> TestCase:
    return TestCase.build(name=name, classname=None, file="t.py", line=1, status=status)


def honest(verdict: Verdict) -> VerdictFile:
    """What `verify-pr run` writes for each verdict."""
    cases = {
        Verdict.PASS: (_case(TestStatus.PASSED),),
        Verdict.FAIL: (_case(TestStatus.FAILED),),
        Verdict.NOT_PROVEN: (),
        Verdict.BLOCKED: (),
    }[verdict]
    status = {Verdict.BLOCKED: RunStatus.BLOCKED, Verdict.NOT_PROVEN: RunStatus.TIMEOUT}.get(
        verdict, RunStatus.COMPLETED
    )
    ran = status is RunStatus.COMPLETED
    return VerdictFile(
        verdict=verdict,
        reasons=(),
        runner="pytest",
        runner_version=None,
        command="pytest",
        totals=Totals.count(cases) if ran else None,
        testcases=cases,
        sandbox=SandboxResult(
            status=status,
            exit_code=(1 if verdict is Verdict.FAIL else 0) if ran else None,
            output_truncated=False,
            detail="",
            image="i",
            timeout_s=60,
            report=ReportStatus.RETURNED if ran else ReportStatus.MISSING,
        ),
    )


@pytest.mark.parametrize("verdict", list(Verdict))
def test_an_honest_verdict_has_no_problem(verdict: Verdict) -> None:
    assert run_problems(honest(verdict)) == []


@pytest.mark.parametrize("told", list(Verdict))
@pytest.mark.parametrize("truth", [Verdict.PASS, Verdict.FAIL, Verdict.BLOCKED])
def test_another_decisive_claim_over_the_same_data_is_a_problem(
    truth: Verdict, told: Verdict
) -> None:
    lie = honest(truth).model_copy(update={"verdict": told})
    problems = run_problems(lie)
    weaker = told is Verdict.NOT_PROVEN and truth is Verdict.PASS  # under-claiming is allowed
    assert (problems == []) == (told is truth or weaker), problems


def test_worst_status_per_id_wins() -> None:
    cases = (_case(TestStatus.PASSED), _case(TestStatus.ERROR), _case(TestStatus.SKIPPED, "s"))
    assert worst_by_id(cases) == {"t.py::::t": TestStatus.ERROR, "t.py::::s": TestStatus.SKIPPED}
