"""Strict, capped JUnit XML parser (pytest xunit1/xunit2, vitest, bun, jest-junit).

defusedxml refuses DTDs, entities and external references; it has no size, depth or element
caps, so those are ours and are enforced while the parser streams. The report is read in
chunks and each ``<testcase>`` is turned into a result at its end tag and then dropped, so
memory holds one testcase and its open ancestors, never the document. Counts come from every
``<testcase>`` at any depth, never from the root's attributes (those are only cross-checked).
A testcase must sit directly in a suite, and in a suite that declares totals when any does
(checked against the open-element stack); a ``<failure>``/``<error>`` anywhere below a
testcase counts, since a lenient reader that looks only at direct children would miss it.
Anything unexpected raises ReportError: a report we cannot read never passes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, BinaryIO
from xml.etree.ElementTree import Element

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

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
    parse_count,
    parse_seconds,
    repo_relative,
)

# Elements follow the report's size (a 64 MiB report may hold millions), with this floor;
# inside one testcase (held whole until its end tag) the count is fixed.
MIN_ELEMENTS = 50_000
BYTES_PER_ELEMENT = 8
MAX_TESTCASE_ELEMENTS = 1_000
MAX_DEPTH = 32
MAX_ATTRIBUTE_CHARS = 64 * 1024
MAX_ATTRIBUTES = 32

ROOTS = frozenset({"testsuites", "testsuite"})
_COUNT_ATTRS = ("tests", "failures", "errors", "skipped", "disabled", "assertions")
_RESULT_RANK = {"skipped": 1, "failure": 2, "error": 3}  # the worst child decides
_STATUS = {
    "skipped": TestStatus.SKIPPED,
    "failure": TestStatus.FAILED,
    "error": TestStatus.ERROR,
}
# Root `name` as each runner writes it (NOTES §3) -> runner name for the report.
_ROOT_NAMES = {
    "pytest tests": "pytest",
    "pytest": "pytest",  # bare <testsuite name="pytest"> (pytest < 5.1)
    "vitest tests": "vitest",
    "bun test": "bun",
    "jest tests": "jest",
}
_PYTEST_COLLECTION_FAILURE = "collection failure"
# pytest writes an xfailed test as <skipped type="pytest.xfail">, and a non-strict XPASS as a
# plain pass: verify-pr's pytest bootstrap marks both with this testcase property.
EXPECTED_FAILURE_PROPERTY = "verify-pr.expected-failure"
_PYTEST_XFAIL_TYPE = "pytest.xfail"


class JunitDialect(StrEnum):
    """Which writer produced the file: decides line bases and where the file path lives."""

    PYTEST = "pytest"  # xunit1: file + 0-based line; xunit2: classname + name only
    VITEST = "vitest"  # classname is the file; a file that fails to load is a testcase
    BUN = "bun"  # file + 1-based line; <= 1.3: empty <failure/>, retries duplicated
    JEST_JUNIT = "jest-junit"
    GENERIC = "generic"


def elements_cap(size: int) -> int:
    """The element cap that follows a report's size in bytes."""
    return max(MIN_ELEMENTS, size // BYTES_PER_ELEMENT)


def parse_junit(
    data: ReportSource,
    *,
    dialect: JunitDialect = JunitDialect.GENERIC,
    tree_root: str = DEFAULT_TREE_ROOT,
    max_testcases: int = MAX_TESTCASES,
) -> TestReport:
    """Parse one JUnit XML report (bytes, or a file streamed in chunks); ReportError on
    anything we cannot vouch for. ``max_testcases`` lowers the cap (tests drive its edge with
    a small one); it can never raise it above the report model's."""
    if not 0 < max_testcases <= MAX_TESTCASES:
        raise ValueError(f"max_testcases must be 1..{MAX_TESTCASES}, not {max_testcases}")
    with open_report(data, "JUnit report") as (stream, size):
        reader = _Reader(dialect, tree_root, size, max_testcases)
        for event, el in _events(stream):
            if event == "start":
                reader.start(el)
            else:
                reader.end(el)
    return reader.report()


def _events(stream: BinaryIO) -> Iterator[tuple[str, Element]]:
    # Third-party errors stop here, as ReportError. ParseError subclasses SyntaxError (and
    # defusedxml uses the pure-Python module, whose ParseError is a different class).
    try:
        yield from iterparse(
            stream,
            events=("start", "end"),
            forbid_dtd=True,
            forbid_entities=True,
            forbid_external=True,
        )
    except DefusedXmlException as exc:
        raise ReportError(f"JUnit report: forbidden XML construct ({type(exc).__name__})") from exc
    except (SyntaxError, ValueError, LookupError, UnicodeError) as exc:
        raise ReportError(f"JUnit report: not well-formed XML ({str(exc)[:200]})") from exc


@dataclass
class _Reader:
    """The streaming state: caps are enforced on each start tag; a testcase is read at its
    end tag, then it and every closed sibling are dropped from the tree."""

    dialect: JunitDialect
    tree_root: str
    size: int
    max_testcases: int
    root_name: str | None = None
    open: list[Element] = field(default_factory=list)
    cases: list[TestCase] = field(default_factory=list)
    flags: list[RedFlag] = field(default_factory=list)
    # Placement: the outermost suites that declare totals (reached through suites only),
    # how many open suites declare them, whether any suite does, whether a testcase sat
    # outside every counted suite (refused at the end, once it is known totals exist).
    counted_suites: list[dict[str, str]] = field(default_factory=list)
    counted_open: int = 0
    any_counts: bool = False
    uncounted_case: bool = False
    elements: int = 0
    case_elements: int = 0
    testcases: int = 0
    bad_results: int = 0  # <failure> and <error> elements seen in testcases

    def start(self, el: Element) -> None:
        if not self.open:
            if self.root_name is not None:  # pragma: no cover - expat refuses a second root
                raise ReportError("JUnit report: more than one root element")
            if el.tag not in ROOTS:
                raise ReportError(
                    f"JUnit report: root element is <{str(el.tag)[:80]}>, "
                    "expected <testsuites> or <testsuite>"
                )
            self.root_name = el.get("name", "")
        self.elements += 1
        limit = elements_cap(self.size)
        if self.elements > limit:
            raise ReportError(f"JUnit report: more than {limit} elements")
        if len(self.open) >= MAX_DEPTH:
            raise ReportError(f"JUnit report: nesting deeper than {MAX_DEPTH}")
        _check_attributes(el)
        in_case = any(o.tag == "testcase" for o in self.open)
        if in_case:
            self.case_elements += 1
            if self.case_elements > MAX_TESTCASE_ELEMENTS:
                raise ReportError(
                    f"JUnit report: a <testcase> holds over {MAX_TESTCASE_ELEMENTS} elements"
                )
        if el.tag == "testcase":
            if in_case:
                raise ReportError("JUnit report: <testcase> nested inside <testcase>")
            self._place_testcase()
            self.testcases += 1
            self.case_elements = 0
            if self.testcases > self.max_testcases:
                raise ReportError(f"JUnit report: more than {self.max_testcases} testcases")
        if el.tag in ROOTS:
            _check_suite_counts(el)
            if _has_counts(el.attrib):
                self.any_counts = True
                if not self.counted_open and all(o.tag in ROOTS for o in self.open):
                    self.counted_suites.append(dict(el.attrib))
                self.counted_open += 1
        self.open.append(el)

    def _place_testcase(self) -> None:
        """Every ``<testcase>`` sits directly in a ``<testsuite>`` (or the root) and, when the
        report declares totals anywhere, inside a suite that declares them: a testcase tucked
        into ``<properties>`` or ``<system-out>``, or beside the counted suites where no total
        covers it, is one no writer makes. (With no totals at all every testcase counts.)"""
        parent = self.open[-1]  # never empty: the root is a suite, not a testcase
        if parent.tag not in ROOTS:
            raise ReportError(
                f"JUnit report: <testcase> inside <{str(parent.tag)[:80]}>, not a suite"
            )
        if not self.counted_open:
            self.uncounted_case = True

    def end(self, el: Element) -> None:
        self.open.pop()
        if el.tag in ROOTS and _has_counts(el.attrib):
            self.counted_open -= 1
        if el.tag == "testcase":
            self.cases.append(_testcase(el, self.dialect, self.tree_root, self.flags))
            # pytest counts each <failure>/<error> it writes, and can write two in one
            # testcase (a module collected both as tests and as doctests fails twice)
            # (counted as _status reads them: at any depth)
            self.bad_results += sum(1 for c in el.iter() if c.tag in ("failure", "error"))
        if self.open and not any(o.tag == "testcase" for o in self.open):
            del self.open[-1][:]  # every child of the parent is closed and read: drop them

    def report(self) -> TestReport:
        if self.root_name is None:  # pragma: no cover - expat refuses a document without one
            raise ReportError("JUnit report: no root element")
        if self.uncounted_case and self.any_counts:
            raise ReportError("JUnit report: <testcase> outside any suite that declares its totals")
        if _declared_totals_disagree(self.counted_suites, self.cases, self.bad_results):
            self.flags.append(RedFlag.TOTALS_MISMATCH)
        return TestReport.build(
            format=ReportFormat.JUNIT,
            testcases=self.cases,
            red_flags=self.flags,
            runner=_ROOT_NAMES.get(self.root_name),
        )


def _check_attributes(el: Element) -> None:
    if len(el.attrib) > MAX_ATTRIBUTES:
        raise ReportError(
            f"JUnit report: <{str(el.tag)[:80]}> has over {MAX_ATTRIBUTES} attributes"
        )
    for key, value in el.attrib.items():
        if len(value) > MAX_ATTRIBUTE_CHARS:
            raise ReportError(
                f"JUnit report: attribute {key[:80]!r} is {len(value)} characters, "
                f"over the {MAX_ATTRIBUTE_CHARS} cap"
            )


def _check_suite_counts(el: Element) -> None:
    """Suite attributes are not used for counting, but a malformed one means a bad writer."""
    for attr in _COUNT_ATTRS:
        raw = el.get(attr)
        if raw is not None:
            parse_count(raw, f"<{el.tag}> attribute {attr}")
    raw = el.get("time")
    if raw is not None:
        parse_seconds(raw, f"<{el.tag}> attribute time")


def _testcase(el: Element, dialect: JunitDialect, tree_root: str, flags: list[RedFlag]) -> TestCase:
    name = el.get("name", "")
    classname = el.get("classname") or None
    status, result = _status(el)
    status = _expected_failure(el, status, result)
    message = _message(result)
    file = el.get("file")
    if dialect is JunitDialect.VITEST and file is None:
        file = classname  # vitest writes the test file's path as the classname
    line = _line(el.get("line"), zero_based=dialect is JunitDialect.PYTEST)
    raw_time = el.get("time")
    duration = None if raw_time is None else parse_seconds(raw_time, "<testcase> time")
    for attr in ("assertions",):
        if el.get(attr) is not None:
            parse_count(el.get(attr, ""), f"<testcase> {attr}")
    if not name and not classname:
        flags.append(RedFlag.NAMELESS_TESTCASE)
    if _is_collection_error(dialect, status, classname, result):
        flags.append(RedFlag.COLLECTION_ERROR)
    if dialect is JunitDialect.VITEST and status is TestStatus.FAILED and name == classname:
        flags.append(RedFlag.LOAD_ERROR)  # vitest's stand-in testcase for an unloadable file
    return TestCase.build(
        name=name,
        classname=classname,
        file=repo_relative(file, tree_root),
        line=line,
        status=status,
        message=message,
        duration_s=duration,
    )


def _status(el: Element) -> tuple[TestStatus, Element | None]:
    worst: Element | None = None
    direct = set(map(id, el))
    for child in el.iter():
        if child is el:
            continue
        rank = _RESULT_RANK.get(str(child.tag))
        if rank is None or (id(child) not in direct and child.tag == "skipped"):
            continue  # a result counts as a direct child; failure and error at any depth
        if worst is None or rank > _RESULT_RANK[str(worst.tag)]:
            worst = child
    if worst is None:
        return TestStatus.PASSED, None
    return _STATUS[str(worst.tag)], worst


def _expected_failure(el: Element, status: TestStatus, result: Element | None) -> TestStatus:
    """A test marked to fail is neither a pass nor a skip; a failure or error stays one (a
    strict XPASS is pytest's own failure)."""
    if status not in (TestStatus.PASSED, TestStatus.SKIPPED):
        return status
    if result is not None and result.get("type") == _PYTEST_XFAIL_TYPE:
        return TestStatus.EXPECTED_FAILURE
    for props in el.findall("properties"):
        if any(p.get("name") == EXPECTED_FAILURE_PROPERTY for p in props.findall("property")):
            return TestStatus.EXPECTED_FAILURE
    return status


def _message(result: Element | None) -> str | None:
    """The message attribute, else the body, else the type: bun <= 1.3 writes an empty
    ``<failure type="AssertionError"/>``, which is still a failure."""
    if result is None:
        return None
    for candidate in (result.get("message"), (result.text or "").strip(), result.get("type")):
        if candidate:
            return candidate
    return None


def _line(raw: str | None, *, zero_based: bool) -> int | None:
    if raw is None:
        return None
    value = parse_count(raw, "<testcase> line")
    if zero_based:
        return value + 1  # pytest xunit1 writes the 0-based line of the def
    return value or None  # 0 in a 1-based writer: no usable location


def _is_collection_error(
    dialect: JunitDialect, status: TestStatus, classname: str | None, result: Element | None
) -> bool:
    if result is None or status is not TestStatus.ERROR:
        return False
    if result.get("message") == _PYTEST_COLLECTION_FAILURE:
        return True
    # pytest always writes a dotted classname for a collected test; an errored testcase with
    # none is a module (or package) that failed to import.
    return dialect is JunitDialect.PYTEST and classname is None


def _declared_totals_disagree(
    counted_suites: list[dict[str, str]], cases: list[TestCase], bad_results: int = 0
) -> bool:
    declared = _declared(counted_suites)
    if declared is None:
        return False
    tests, bad = declared
    bad_cases = sum(c.status in (TestStatus.FAILED, TestStatus.ERROR) for c in cases)
    # pytest counts every result element it writes, in errors and in tests alike
    extra = max(bad_results - bad_cases, 0)
    # Fewer declared failures than counted is harmless (we already have the evidence);
    # more declared than counted means results we cannot see.
    return (tests is not None and tests not in (len(cases), len(cases) + extra)) or bad > max(
        bad_cases, bad_results
    )


def _declared(suites: list[dict[str, str]]) -> tuple[int | None, int] | None:
    """(tests, failures+errors) summed over the outermost suites that declare totals (the root
    alone when it does; every testcase is inside one of them: _place_testcase)."""
    if not suites:
        return None
    tests: int | None = 0
    bad = 0
    for suite in suites:
        counts = _counts(suite)
        if tests is not None:
            tests = None if counts["tests"] is None else tests + counts["tests"]
        bad += (counts["failures"] or 0) + (counts["errors"] or 0)
    return tests, bad


def _has_counts(attrib: Mapping[str, str]) -> bool:
    return any(attrib.get(a) is not None for a in ("tests", "failures", "errors"))


def _counts(attrib: Mapping[str, Any]) -> dict[str, int | None]:
    return {
        key: None if attrib.get(key) is None else int(attrib[key])
        for key in ("tests", "failures", "errors")
    }
