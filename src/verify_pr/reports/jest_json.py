"""Strict parser for jest ``--json`` output and vitest's json reporter (same jest shape).

Only the parts we read are modelled, each strictly typed; unknown keys are ignored because both
runners keep adding them. The report is streamed (:mod:`json_stream`): one suite's results
are in memory at a time. One testcase per assertion result; a suite that failed without any
failed assertion (a file that could not load) becomes one ``error`` testcase, since that is
real failure evidence, plus a red flag.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import Annotated, Any, Literal, TypeVar

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
    ReportSource,
    open_report,
    repo_relative,
    validation_report_error,
)
from verify_pr.reports.json_stream import JsonStream

MAX_SUITES = 10_000
MAX_TITLES = 64
MAX_FAILURE_MESSAGES = 100
LOAD_ERROR_NAME = "(test file failed to run)"
# What verify-pr's recorders (runners/node/failing_recorder.py) write on each assertion result:
# the test's test.failing / test.fails flag, read from the runner's own state.
RECORD_KEY = "verifyPrFailing"
# ... and whether a failed test failed outside its own body (a beforeEach/beforeAll hook threw):
# such a result is an error, as pytest's setup errors are (``pairing.pair`` then discounts it).
OUTSIDE_KEY = "verifyPrOutside"
# One value decoded whole (a result, a suite's message) may be as large as the report itself,
# with this floor; it is the only part of the report in memory at a time.
MIN_VALUE_CHARS = 1024 * 1024

Count = Annotated[int, Field(ge=0)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class JsonDialect(StrEnum):
    JEST = "jest"  # jest 29: numRuntimeErrorTestSuites and wasInterrupted are required
    VITEST = "vitest"  # vitest 3.x: neither key exists


class _Read(BaseModel):
    # Strict types on what we read; extra keys ignored (and dropped), not refused.
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


_M = TypeVar("_M", bound=_Read)


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
    verifyPrFailing: bool | None = None  # RECORD_KEY: strictly a bool when present
    verifyPrOutside: bool | None = None  # OUTSIDE_KEY: strictly a bool when present


class _Suite(_Read):
    """A suite's own keys; its assertionResults are streamed one by one."""

    name: str  # absolute path of the test file
    status: Annotated[str, Field(max_length=40)]  # jest also writes "focused", "pending"
    message: str = ""


class _Report(_Read):
    """The report's own keys; testResults is streamed suite by suite."""

    success: bool
    numTotalTests: Count
    numFailedTests: Count
    numFailedTestSuites: Count
    numRuntimeErrorTestSuites: Count | None = None
    wasInterrupted: bool | None = None


_STATUS: dict[str, TestStatus] = {
    "passed": TestStatus.PASSED,
    "failed": TestStatus.FAILED,
    "skipped": TestStatus.SKIPPED,
    "pending": TestStatus.SKIPPED,
    "todo": TestStatus.SKIPPED,
    "disabled": TestStatus.SKIPPED,
}


def parse_jest_json(
    data: ReportSource,
    *,
    dialect: JsonDialect = JsonDialect.JEST,
    tree_root: str = DEFAULT_TREE_ROOT,
    max_testcases: int = MAX_TESTCASES,
    recorded: bool = False,
) -> TestReport:
    """Parse a jest or vitest JSON report (bytes, or a file streamed in chunks); ReportError
    on anything we cannot vouch for. ``max_testcases`` lowers the cap on test results (tests
    drive its edge with a small one); it can never raise it above the report model's.

    A passing result whose :data:`RECORD_KEY` is true is an expected failure. ``recorded``:
    the report comes from verify-pr's own command, whose recorder writes the key on every
    result; a passing one without it is then a red flag (never trusted as a pass)."""
    if not 0 < max_testcases <= MAX_TESTCASES:
        raise ValueError(f"max_testcases must be 1..{MAX_TESTCASES}, not {max_testcases}")
    what = f"{dialect} JSON report"
    with open_report(data, what) as (stream, size):
        json = JsonStream(stream, what, max(MIN_VALUE_CHARS, size))
        walk = _Walk(json, what, tree_root, max_testcases, recorded)
        report = walk.document()
    if dialect is JsonDialect.JEST and (
        report.numRuntimeErrorTestSuites is None or report.wasInterrupted is None
    ):
        raise ReportError(f"{what}: numRuntimeErrorTestSuites or wasInterrupted is missing")
    walk.flags.extend(_summary_flags(report, walk.cases, walk.assertions, walk.failed))
    if walk.unrecorded:
        walk.flags.append(RedFlag.FAILING_UNRECORDED)
    return TestReport.build(
        format=ReportFormat.JEST_JSON if dialect is JsonDialect.JEST else ReportFormat.VITEST_JSON,
        testcases=walk.cases,
        red_flags=walk.flags,
        runner=str(dialect),
    )


class _Walk:
    """The report read key by key: suites and their results one at a time, so memory holds
    one suite's results, never the document."""

    def __init__(
        self, json: JsonStream, what: str, tree_root: str, max_testcases: int, recorded: bool
    ) -> None:
        self.json = json
        self.what = what
        self.tree_root = tree_root
        self.max_testcases = max_testcases
        self.recorded = recorded
        self.unrecorded = 0  # passing results without the recorder's flag
        self.cases: list[TestCase] = []
        self.flags: list[RedFlag] = []
        self.assertions = 0
        self.failed = 0  # failed results (errors outside their body too: jest counts them)
        self.suites = 0

    def document(self) -> _Report:
        head: dict[str, Any] = {}
        seen_results = False
        for key in self.json.object_keys():
            if key == "testResults":
                seen_results = True
                for _ in self.json.array_items():
                    self.suite()
            elif key in _Report.model_fields:
                head[key] = self.json.value()
            else:
                self.json.value()  # unknown keys are read (checked) and dropped
        self.json.finish()
        if not seen_results:
            raise ReportError(f"{self.what}: testResults is missing")
        return _validated(_Report, head, self.what, "")

    def suite(self) -> None:
        self.suites += 1
        if self.suites > MAX_SUITES:
            raise ReportError(f"{self.what}: more than {MAX_SUITES} suites in testResults")
        fields: dict[str, Any] = {}
        results: list[_Assertion] | None = None
        for key in self.json.object_keys():
            if key == "assertionResults":
                results = list(self.results())
            elif key in _Suite.model_fields:
                fields[key] = self.json.value()
            else:
                self.json.value()
        if results is None:
            raise ReportError(f"{self.what}: a suite has no assertionResults")
        suite = _validated(_Suite, fields, self.what, f"testResults.{self.suites - 1}")
        cases = _suite_cases(suite, results, self.tree_root, self.flags, self.recorded)
        if self.recorded:
            self.unrecorded += sum(
                a.verifyPrFailing is None and c.status is TestStatus.PASSED
                for a, c in zip(results, cases, strict=False)
            )
        bad = (TestStatus.FAILED, TestStatus.ERROR)
        self.failed += sum(c.status in bad for c in cases[: len(results)])
        self.cases.extend(cases)

    def results(self) -> Iterator[_Assertion]:
        at = f"testResults.{self.suites - 1}.assertionResults"
        for index, _ in enumerate(self.json.array_items()):
            self.assertions += 1
            if self.assertions > self.max_testcases:
                raise ReportError(f"{self.what}: more than {self.max_testcases} test results")
            yield _validated(_Assertion, self.json.value(), self.what, f"{at}.{index}")


def _validated(model: type[_M], value: Any, what: str, at: str) -> _M:  # noqa: ANN401
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        raise validation_report_error(what, exc, at) from exc


def _suite_cases(
    suite: _Suite,
    results: list[_Assertion],
    tree_root: str,
    flags: list[RedFlag],
    recorded: bool = False,
) -> list[TestCase]:
    file = repo_relative(suite.name, tree_root)
    cases = [_assertion_case(a, file, recorded) for a in results]
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


def _assertion_case(a: _Assertion, file: str | None, recorded: bool = False) -> TestCase:
    line = a.location.line if a.location is not None and a.location.line >= 1 else None
    status = _STATUS[a.status]
    if a.failureMessages:
        # A failure message is failure evidence whatever the status says: a todo, pending,
        # skipped (or passed) case that carries one counts as failed.
        status = TestStatus.FAILED
        if a.verifyPrOutside or (recorded and a.verifyPrOutside is None):
            # a hook threw (or the recorder could not say it did not): outside its own body,
            # an error as pytest's setup errors are, never the test's own failure
            status = TestStatus.ERROR
    elif status is TestStatus.PASSED and a.verifyPrFailing:
        # test.failing / test.fails whose body failed: the runner's pass, never ours
        status = TestStatus.EXPECTED_FAILURE
    return TestCase.build(
        name=a.title,
        classname=" > ".join(a.ancestorTitles) or None,
        file=file,
        line=line,
        status=status,
        message="\n".join(a.failureMessages) or None,
        duration_s=None if a.duration is None else a.duration / 1000,
    )


def _summary_flags(
    report: _Report, cases: list[TestCase], assertions: int, failed: int
) -> list[RedFlag]:
    flags: list[RedFlag] = []
    if report.numRuntimeErrorTestSuites:
        flags.append(RedFlag.RUNTIME_ERROR_SUITES)
    if report.wasInterrupted:
        flags.append(RedFlag.INTERRUPTED)
    bad = sum(c.status in (TestStatus.FAILED, TestStatus.ERROR) for c in cases)
    if not report.success and bad == 0:
        flags.append(RedFlag.NOT_SUCCESS)
    if (
        report.numTotalTests != assertions
        or report.numFailedTests != failed
        or (report.success and bad > 0)
    ):
        flags.append(RedFlag.TOTALS_MISMATCH)
    return flags
