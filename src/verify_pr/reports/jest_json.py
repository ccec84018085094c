"""Strict parser for jest ``--json`` output and vitest's json reporter (same jest shape).

Only the parts we read are modelled, each strictly typed; unknown keys are ignored because both
runners keep adding them. One testcase per assertion result; a suite that failed without any
failed assertion (a file that could not load) becomes one ``error`` testcase, since that is
real failure evidence, plus a red flag.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from verify_pr.errors import ReportError
from verify_pr.models.report import (
    MAX_TESTCASES,
    RedFlag,
    ReportFormat,
    TestCase,
    TestReport,
    TestStatus,
)
from verify_pr.reports._common import (
    DEFAULT_TREE_ROOT,
    check_size,
    repo_relative,
    validation_report_error,
)

MAX_SUITES = 10_000
MAX_TITLES = 64
MAX_FAILURE_MESSAGES = 100
LOAD_ERROR_NAME = "(test file failed to run)"

Count = Annotated[int, Field(ge=0)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class JsonDialect(StrEnum):
    JEST = "jest"  # jest 29: numRuntimeErrorTestSuites and wasInterrupted are required
    VITEST = "vitest"  # vitest 3.x: neither key exists


class _Read(BaseModel):
    # Strict types on what we read; extra keys ignored (and dropped), not refused.
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class _Location(_Read):
    line: Count
    column: Count | None = None


class _Assertion(_Read):
    ancestorTitles: Annotated[list[str], Field(max_length=MAX_TITLES)]
    title: str
    status: Literal["passed", "failed", "skipped", "pending", "todo", "disabled"]
    duration: Seconds | None = None  # milliseconds, despite the name
    failureMessages: Annotated[list[str], Field(max_length=MAX_FAILURE_MESSAGES)] = []
    location: _Location | None = None


class _Suite(_Read):
    name: str  # absolute path of the test file
    status: Annotated[str, Field(max_length=40)]  # jest also writes "focused", "pending"
    message: str = ""
    assertionResults: Annotated[list[_Assertion], Field(max_length=MAX_TESTCASES)]


class _Report(_Read):
    success: bool
    numTotalTests: Count
    numFailedTests: Count
    numFailedTestSuites: Count
    numRuntimeErrorTestSuites: Count | None = None
    wasInterrupted: bool | None = None
    testResults: Annotated[list[_Suite], Field(max_length=MAX_SUITES)]


_STATUS: dict[str, TestStatus] = {
    "passed": TestStatus.PASSED,
    "failed": TestStatus.FAILED,
    "skipped": TestStatus.SKIPPED,
    "pending": TestStatus.SKIPPED,
    "todo": TestStatus.SKIPPED,
    "disabled": TestStatus.SKIPPED,
}


def parse_jest_json(
    data: bytes,
    *,
    dialect: JsonDialect = JsonDialect.JEST,
    tree_root: str = DEFAULT_TREE_ROOT,
) -> TestReport:
    """Parse a jest or vitest JSON report; ReportError on anything we cannot vouch for."""
    what = f"{dialect} JSON report"
    check_size(data, what)
    try:
        report = _Report.model_validate_json(data)
    except ValidationError as exc:  # also bad UTF-8, bad JSON and over-deep nesting
        raise validation_report_error(what, exc) from exc
    _refuse_duplicate_keys(data, what)
    if dialect is JsonDialect.JEST and (
        report.numRuntimeErrorTestSuites is None or report.wasInterrupted is None
    ):
        raise ReportError(f"{what}: numRuntimeErrorTestSuites or wasInterrupted is missing")
    assertions = sum(len(s.assertionResults) for s in report.testResults)
    if assertions > MAX_TESTCASES:
        raise ReportError(f"{what}: more than {MAX_TESTCASES} test results")

    flags: list[RedFlag] = []
    cases: list[TestCase] = []
    for suite in report.testResults:
        cases.extend(_suite_cases(suite, tree_root, flags))
    flags.extend(_summary_flags(report, cases))
    return TestReport.build(
        format=ReportFormat.JEST_JSON if dialect is JsonDialect.JEST else ReportFormat.VITEST_JSON,
        testcases=cases,
        red_flags=flags,
        runner=str(dialect),
    )


class _DuplicateKey(Exception):
    pass


def _no_repeats(pairs: list[tuple[str, object]]) -> None:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen.add(key)


def _refuse_duplicate_keys(data: bytes, what: str) -> None:
    """A key twice in one object: readers disagree on which one counts (we would read the last
    ``"success"``, another tool the first), so the report says two things and is refused."""
    try:
        json.loads(data, object_pairs_hook=_no_repeats)
    except _DuplicateKey as exc:
        raise ReportError(f"{what}: key {str(exc)[:80]!r} appears twice in one object") from None
    except (ValueError, RecursionError) as exc:  # pydantic read it; be safe if json cannot
        raise ReportError(f"{what}: not plain JSON ({type(exc).__name__})") from None


def _suite_cases(suite: _Suite, tree_root: str, flags: list[RedFlag]) -> list[TestCase]:
    file = repo_relative(suite.name, tree_root)
    cases = [_assertion_case(a, file) for a in suite.assertionResults]
    failed = any(c.status is TestStatus.FAILED for c in cases)
    if suite.status == "failed" and not failed:
        # The file failed outside any test: a load error, a hook, process.exit at top level.
        flags.append(RedFlag.LOAD_ERROR)
        cases.append(
            TestCase.build(
                name=LOAD_ERROR_NAME,
                classname=None,
                file=file if file is not None else suite.name,
                line=None,
                status=TestStatus.ERROR,
                message=suite.message or "the suite failed without a failed test",
            )
        )
    return cases


def _assertion_case(a: _Assertion, file: str | None) -> TestCase:
    line = a.location.line if a.location is not None and a.location.line >= 1 else None
    status = _STATUS[a.status]
    if a.failureMessages:
        # A failure message is failure evidence whatever the status says: a todo, pending,
        # skipped (or passed) case that carries one counts as failed.
        status = TestStatus.FAILED
    return TestCase.build(
        name=a.title,
        classname=" > ".join(a.ancestorTitles) or None,
        file=file,
        line=line,
        status=status,
        message="\n".join(a.failureMessages) or None,
        duration_s=None if a.duration is None else a.duration / 1000,
    )


def _summary_flags(report: _Report, cases: list[TestCase]) -> list[RedFlag]:
    flags: list[RedFlag] = []
    if report.numRuntimeErrorTestSuites:
        flags.append(RedFlag.RUNTIME_ERROR_SUITES)
    if report.wasInterrupted:
        flags.append(RedFlag.INTERRUPTED)
    bad = sum(c.status in (TestStatus.FAILED, TestStatus.ERROR) for c in cases)
    if not report.success and bad == 0:
        flags.append(RedFlag.NOT_SUCCESS)
    assertions = sum(len(s.assertionResults) for s in report.testResults)
    failed = sum(c.status is TestStatus.FAILED for c in cases)
    if (
        report.numTotalTests != assertions
        or report.numFailedTests != failed
        or (report.success and bad > 0)
    ):
        flags.append(RedFlag.TOTALS_MISMATCH)
    return flags
