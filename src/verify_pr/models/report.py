"""TestReport: what a runner's report file says, after strict parsing.

Strings from the report are untrusted and unbounded: they are truncated on input (with a
visible marker) rather than refused, so one long test name cannot turn a real failure into
"unparseable". Totals are never taken from the report: they are recomputed from the testcases
and checked again whenever a TestReport is validated (a hand-edited JSON cannot lie about them).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import BeforeValidator, Field, model_validator

from verify_pr.models import limits
from verify_pr.models.base import BoundaryModel

TRUNCATION_MARKER = "…[truncated]"
ID_MAX_CHARS = 1000
NAME_MAX_CHARS = 1000
PATH_MAX_CHARS = 1000
MESSAGE_MAX_CHARS = 4000
VERSION_MAX_CHARS = 100
MAX_TESTCASES = limits.MAX_TESTCASES


# C0/C1 controls (but tab and newline) and bidi overrides: they rewrite terminal lines or
# reorder text in a check run, so a name could pose as another; shown as \\xNN / \\uNNNN.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def clean_text(value: str, limit: int) -> str:
    """Make untrusted text safe to store and show, and cut it to ``limit`` characters.

    Lone surrogates (not encodable as UTF-8) become "?"; controls are escaped (deterministic,
    so ids still match between base and head runs).
    """
    value = value.encode("utf-8", "replace").decode("utf-8")
    value = _UNSAFE.sub(_escape, value)
    if len(value) <= limit:
        return value
    return value[: limit - len(TRUNCATION_MARKER)] + TRUNCATION_MARKER


def _truncating(limit: int) -> BeforeValidator:
    def cut(value: Any) -> Any:  # noqa: ANN401 - non-strings pass through to the strict check
        return clean_text(value, limit) if isinstance(value, str) else value

    return BeforeValidator(cut)


IdText = Annotated[str, _truncating(ID_MAX_CHARS), Field(max_length=ID_MAX_CHARS)]
NameText = Annotated[str, _truncating(NAME_MAX_CHARS), Field(max_length=NAME_MAX_CHARS)]
PathText = Annotated[str, _truncating(PATH_MAX_CHARS), Field(max_length=PATH_MAX_CHARS)]
MessageText = Annotated[str, _truncating(MESSAGE_MAX_CHARS), Field(max_length=MESSAGE_MAX_CHARS)]
VersionText = Annotated[str, _truncating(VERSION_MAX_CHARS), Field(max_length=VERSION_MAX_CHARS)]


class TestStatus(StrEnum):
    """Outcome of one testcase. ``error`` is a failure outside the test body (setup, teardown,
    collection); both ``failed`` and ``error`` are failure evidence. ``expected-failure`` is a
    test marked to fail (pytest xfail and non-strict xpass, jest/bun ``test.failing``, vitest
    ``test.fails``): its runner counts it as passing, but it is never a pass here, nor a
    failure (a todo never runs: it is skipped). ``not-run`` is only ever in base's own run
    (``verify.pairing.base_own``): a test of base's whole collection that its run by id did not run,
    because nothing the verdict reads needs it; no report yields it."""

    __test__ = False  # not a pytest test class

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SKIPPED = "skipped"
    EXPECTED_FAILURE = "expected-failure"
    NOT_RUN = "not-run"


FAILING = frozenset({TestStatus.FAILED, TestStatus.ERROR})
# What ran and counts as a result: a skipped test never ran, an expected failure's outcome
# says nothing either way.
EXECUTED = frozenset({TestStatus.PASSED, TestStatus.FAILED, TestStatus.ERROR})
# Duplicate ids collapse to the worst: error > failed > expected failure > passed > skipped
# (an id that is marked to fail anywhere is not a pass).
STATUS_RANK = {
    TestStatus.NOT_RUN: -1,  # any result of the id wins over "collected, not run"
    TestStatus.SKIPPED: 0,
    TestStatus.PASSED: 1,
    TestStatus.EXPECTED_FAILURE: 2,
    TestStatus.FAILED: 3,
    TestStatus.ERROR: 4,
}


class ReportFormat(StrEnum):
    JUNIT = "junit"
    JEST_JSON = "jest-json"
    VITEST_JSON = "vitest-json"
    GO_JSON = "go-test-json"


class RedFlag(StrEnum):
    """Report-level evidence that the run did not execute the whole suite cleanly.

    Any red flag means the report cannot support a PASS (the verdict layer decides the rest).
    """

    COLLECTION_ERROR = "collection error"  # pytest could not import a test module
    LOAD_ERROR = "suite failed to load"  # jest/vitest: a test file failed before any test ran
    RUNTIME_ERROR_SUITES = "runtime error suites"  # jest numRuntimeErrorTestSuites > 0
    INTERRUPTED = "interrupted"  # jest wasInterrupted
    NOT_SUCCESS = "runner reported failure"  # success: false with no failed testcase to show
    TOTALS_MISMATCH = "declared totals disagree with testcases"
    NO_TESTCASES = "no testcases"
    NAMELESS_TESTCASE = "testcase without a name"  # pytest writes one on KeyboardInterrupt
    # jest/vitest under verify-pr's command: a passing test without its expected-failure flag
    # (the recorder did not run for it, or its record was removed): it may be a test.failing
    FAILING_UNRECORDED = "expected failures not recorded"


def make_test_id(file: str | None, classname: str | None, name: str) -> str:
    """Stable identity across base and head runs; long ids keep a hash of the full key."""
    key = "::".join((file or "", classname or "", name))
    key = clean_text(key, len(key) * 6 + 1)  # escape only; the cut below keeps a hash
    if len(key) <= ID_MAX_CHARS:
        return key
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return key[: ID_MAX_CHARS - 18] + "#" + digest + "…"


class TestCase(BoundaryModel):
    __test__ = False

    id: IdText
    name: NameText
    classname: NameText | None
    file: PathText | None
    line: Annotated[int, Field(ge=1)] | None
    status: TestStatus
    message: MessageText | None
    duration_s: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None

    @classmethod
    def build(
        cls,
        *,
        name: str,
        classname: str | None,
        file: str | None,
        line: int | None,
        status: TestStatus,
        message: str | None = None,
        duration_s: float | None = None,
    ) -> TestCase:
        """The id is computed here, from the untruncated parts."""
        return cls(
            id=make_test_id(file, classname, name),
            name=name,
            classname=classname,
            file=file,
            line=line,
            status=status,
            message=message,
            duration_s=duration_s,
        )


class Totals(BoundaryModel):
    total: Annotated[int, Field(ge=0)]
    passed: Annotated[int, Field(ge=0)]
    failed: Annotated[int, Field(ge=0)]
    error: Annotated[int, Field(ge=0)]
    skipped: Annotated[int, Field(ge=0)]
    expected_failure: Annotated[int, Field(ge=0)] = 0  # absent from files before it existed

    @property
    def executed(self) -> int:
        return self.passed + self.failed + self.error

    @classmethod
    def count(cls, testcases: Iterable[TestCase]) -> Totals:
        counts = dict.fromkeys(TestStatus, 0)
        for case in testcases:
            counts[case.status] += 1
        # a test collected and not run (base's own run by id) is listed, never counted
        counts.pop(TestStatus.NOT_RUN)
        return cls(
            total=sum(counts.values()),
            passed=counts[TestStatus.PASSED],
            failed=counts[TestStatus.FAILED],
            error=counts[TestStatus.ERROR],
            skipped=counts[TestStatus.SKIPPED],
            expected_failure=counts[TestStatus.EXPECTED_FAILURE],
        )


LOAD_ERROR_NAMES = ("(test file failed to run)",)  # jest_json.LOAD_ERROR_NAME


def is_load_failure(case: TestCase) -> bool:
    """A runner's stand-in for a test file that could not load (pytest collection error,
    jest/vitest suite failure): it stands for every test of that file."""
    if case.status not in FAILING or case.file is None:
        return False
    if case.classname is None:  # pytest: an errored module; a JS top-level test only fails
        return case.status is TestStatus.ERROR or case.name in LOAD_ERROR_NAMES
    return case.name == case.classname  # vitest's stand-in for an unloadable file


class TestReport(BoundaryModel):
    """One parsed report. Duplicate ids are kept (a pytest fail-then-teardown-error, a bun
    retry): every ``<testcase>`` is one result, and the worst one per id decides."""

    __test__ = False

    format: ReportFormat
    runner: VersionText | None
    runner_version: VersionText | None
    testcases: Annotated[tuple[TestCase, ...], Field(max_length=MAX_TESTCASES)]
    red_flags: tuple[RedFlag, ...]
    totals: Totals

    @model_validator(mode="after")
    def _totals_match(self) -> Self:
        if self.totals != Totals.count(self.testcases):
            raise ValueError("totals do not match the testcases")
        if len(set(self.red_flags)) != len(self.red_flags):
            raise ValueError("red flags repeat")
        return self

    @classmethod
    def build(
        cls,
        *,
        format: ReportFormat,
        testcases: Iterable[TestCase],
        red_flags: Iterable[RedFlag] = (),
        runner: str | None = None,
        runner_version: str | None = None,
    ) -> TestReport:
        cases = tuple(testcases)
        flags = list(dict.fromkeys(red_flags))  # keep first-seen order, drop repeats
        if not cases and RedFlag.NO_TESTCASES not in flags:
            flags.append(RedFlag.NO_TESTCASES)
        return cls(
            format=format,
            runner=runner,
            runner_version=runner_version,
            testcases=cases,
            red_flags=tuple(flags),
            totals=Totals.count(cases),
        )

    def worst_by_id(self) -> dict[str, TestStatus]:
        """Collapse duplicate ids to the worst status (STATUS_RANK)."""
        worst: dict[str, TestStatus] = {}
        for case in self.testcases:
            seen = worst.get(case.id)
            if seen is None or STATUS_RANK[case.status] > STATUS_RANK[seen]:
                worst[case.id] = case.status
        return worst
