"""verdict.json lists every testcase up to its cap, else failures and errors first."""

from __future__ import annotations

from verify_pr.models.report import ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.verdict import VERDICT_MAX_TESTCASES
from verify_pr.verify.runs.suite import listed_testcases


def case(i: int, status: TestStatus = TestStatus.PASSED) -> TestCase:
    return TestCase.build(name=f"t{i}", classname=None, file="t.py", line=None, status=status)


def report(cases: list[TestCase]) -> TestReport:
    return TestReport.build(format=ReportFormat.JUNIT, testcases=cases)


def test_all_listed_up_to_the_cap() -> None:
    cases = [case(i) for i in range(VERDICT_MAX_TESTCASES)]
    assert listed_testcases(report(cases)) == tuple(cases)


def test_over_the_cap_failures_and_errors_come_first() -> None:
    cases = [case(i) for i in range(VERDICT_MAX_TESTCASES + 500)]
    cases[-1] = case(-1, TestStatus.FAILED)
    cases[-2] = case(-2, TestStatus.ERROR)
    listed = listed_testcases(report(cases))
    assert len(listed) == VERDICT_MAX_TESTCASES
    assert [c.name for c in listed[:2]] == ["t-2", "t-1"]
    assert listed[2:] == tuple(cases[: VERDICT_MAX_TESTCASES - 2])
