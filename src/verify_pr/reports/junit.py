"""Strict, capped JUnit XML parser (pytest xunit1/xunit2, vitest, bun, jest-junit).

defusedxml refuses DTDs, entities and external references; it has no size, depth or element
caps, so those are ours and are enforced while the parser streams, before a tree grows. Counts
come from every ``<testcase>`` at any depth, never from the root's attributes (those are only
cross-checked). Anything unexpected raises ReportError: a report we cannot read never passes.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
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
    check_size,
    parse_count,
    parse_seconds,
    repo_relative,
)

MAX_ELEMENTS = 50_000
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


class JunitDialect(StrEnum):
    """Which writer produced the file: decides line bases and where the file path lives."""

    PYTEST = "pytest"  # xunit1: file + 0-based line; xunit2: classname + name only
    VITEST = "vitest"  # classname is the file; a file that fails to load is a testcase
    BUN = "bun"  # file + 1-based line; <= 1.3: empty <failure/>, retries duplicated
    JEST_JUNIT = "jest-junit"
    GENERIC = "generic"


@dataclass(frozen=True)
class JunitCaps:
    max_bytes: int | None = None  # None: the module default from _common
    max_elements: int = MAX_ELEMENTS
    max_depth: int = MAX_DEPTH
    max_attribute_chars: int = MAX_ATTRIBUTE_CHARS
    max_testcases: int = MAX_TESTCASES


DEFAULT_CAPS = JunitCaps()


def parse_junit(
    data: bytes,
    *,
    dialect: JunitDialect = JunitDialect.GENERIC,
    tree_root: str = DEFAULT_TREE_ROOT,
    caps: JunitCaps = DEFAULT_CAPS,
) -> TestReport:
    """Parse one JUnit XML report; ReportError on anything we cannot vouch for."""
    check_size(data, "JUnit report")
    if caps.max_bytes is not None and len(data) > caps.max_bytes:
        raise ReportError(f"JUnit report: {len(data)} bytes, over the {caps.max_bytes} cap")
    root = _read_tree(data, caps)
    _check_suite_counts(root)
    _check_placement(root)
    flags: list[RedFlag] = []
    cases = [_testcase(el, dialect, tree_root, flags) for el in root.iter("testcase")]
    if _declared_totals_disagree(root, cases):
        flags.append(RedFlag.TOTALS_MISMATCH)
    return TestReport.build(
        format=ReportFormat.JUNIT,
        testcases=cases,
        red_flags=flags,
        runner=_ROOT_NAMES.get(root.get("name", "")),
    )


def _events(data: bytes) -> Iterator[tuple[str, Element]]:
    # Third-party errors stop here, as ReportError. ParseError subclasses SyntaxError (and
    # defusedxml uses the pure-Python module, whose ParseError is a different class).
    try:
        yield from iterparse(
            io.BytesIO(data),
            events=("start", "end"),
            forbid_dtd=True,
            forbid_entities=True,
            forbid_external=True,
        )
    except DefusedXmlException as exc:
        raise ReportError(f"JUnit report: forbidden XML construct ({type(exc).__name__})") from exc
    except (SyntaxError, ValueError, LookupError, UnicodeError) as exc:
        raise ReportError(f"JUnit report: not well-formed XML ({str(exc)[:200]})") from exc


def _read_tree(data: bytes, caps: JunitCaps) -> Element:
    """Stream the document, enforcing every cap on each start tag."""
    root: Element | None = None
    open_tags: list[str] = []
    elements = testcases = 0
    for event, el in _events(data):
        if event == "end":
            open_tags.pop()
            continue
        if root is None:
            root = el
            if el.tag not in ROOTS:
                raise ReportError(
                    f"JUnit report: root element is <{str(el.tag)[:80]}>, "
                    "expected <testsuites> or <testsuite>"
                )
        elements += 1
        if elements > caps.max_elements:
            raise ReportError(f"JUnit report: more than {caps.max_elements} elements")
        if len(open_tags) >= caps.max_depth:
            raise ReportError(f"JUnit report: nesting deeper than {caps.max_depth}")
        _check_attributes(el, caps)
        if el.tag == "testcase":
            if "testcase" in open_tags:
                raise ReportError("JUnit report: <testcase> nested inside <testcase>")
            testcases += 1
            if testcases > caps.max_testcases:
                raise ReportError(f"JUnit report: more than {caps.max_testcases} testcases")
        open_tags.append(str(el.tag))
    if root is None:  # pragma: no cover - expat refuses a document without an element
        raise ReportError("JUnit report: no root element")
    return root


def _check_attributes(el: Element, caps: JunitCaps) -> None:
    if len(el.attrib) > MAX_ATTRIBUTES:
        raise ReportError(
            f"JUnit report: <{str(el.tag)[:80]}> has over {MAX_ATTRIBUTES} attributes"
        )
    for key, value in el.attrib.items():
        if len(value) > caps.max_attribute_chars:
            raise ReportError(
                f"JUnit report: attribute {key[:80]!r} is {len(value)} characters, "
                f"over the {caps.max_attribute_chars} cap"
            )


def _check_suite_counts(root: Element) -> None:
    """Suite attributes are not used for counting, but a malformed one means a bad writer."""
    for el in root.iter():
        if el.tag not in ROOTS:
            continue
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


def _check_placement(root: Element) -> None:
    """Every ``<testcase>`` sits directly in a ``<testsuite>`` (or the root) and, when the
    report declares totals anywhere, inside a suite that declares them: a testcase tucked into
    ``<properties>`` or ``<system-out>``, or beside the counted suites where no total covers
    it, is one no writer makes. (With no totals at all every testcase is still counted.)"""
    uncounted = not any(_has_counts(e) for e in root.iter() if e.tag in ROOTS)

    def walk(el: Element, counted: bool) -> None:
        for child in el:
            if child.tag == "testcase":
                if el.tag not in ROOTS:
                    raise ReportError(
                        f"JUnit report: <testcase> inside <{str(el.tag)[:80]}>, not a suite"
                    )
                if not counted and not uncounted:
                    raise ReportError(
                        "JUnit report: <testcase> outside any suite that declares its totals"
                    )
            elif child.tag in ROOTS:
                walk(child, counted or _has_counts(child))
            else:
                walk(child, counted)

    walk(root, _has_counts(root))


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


def _declared_totals_disagree(root: Element, cases: list[TestCase]) -> bool:
    declared = _declared(root)
    if declared is None:
        return False
    tests, bad = declared
    counted_bad = sum(c.status in (TestStatus.FAILED, TestStatus.ERROR) for c in cases)
    # Fewer declared failures than counted is harmless (we already have the evidence);
    # more declared than counted means results we cannot see.
    return (tests is not None and tests != len(cases)) or bad > counted_bad


def _outermost_counted(el: Element) -> list[Element]:
    if el.tag in ROOTS and _has_counts(el):
        return [el]
    return [s for child in el if child.tag in ROOTS for s in _outermost_counted(child)]


def _declared(root: Element) -> tuple[int | None, int] | None:
    """(tests, failures+errors) that the root says; sums the outermost counted suites when it
    is silent (every testcase is inside one of them: _check_placement)."""
    suites = _outermost_counted(root)
    if not suites:
        return None
    tests: int | None = 0
    bad = 0
    for suite in suites:
        counts = _counts(suite.attrib)
        if tests is not None:
            tests = None if counts["tests"] is None else tests + counts["tests"]
        bad += (counts["failures"] or 0) + (counts["errors"] or 0)
    return tests, bad


def _has_counts(el: Element) -> bool:
    return any(el.get(a) is not None for a in ("tests", "failures", "errors"))


def _counts(attrib: dict[str, Any]) -> dict[str, int | None]:
    return {
        key: None if attrib.get(key) is None else int(attrib[key])
        for key in ("tests", "failures", "errors")
    }
