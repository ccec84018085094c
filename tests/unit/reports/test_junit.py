"""JUnit parser: every cap at its edge, every status, every red flag, and fuzzing."""

from __future__ import annotations

import contextlib
import inspect
import random
from pathlib import Path

import pytest

from verify_pr.errors import ReportError
from verify_pr.models.report import MAX_TESTCASES, RedFlag, TestReport, TestStatus
from verify_pr.reports._common import MAX_REPORT_BYTES
from verify_pr.reports.junit import (
    MAX_ATTRIBUTE_CHARS,
    MAX_ATTRIBUTES,
    MAX_DEPTH,
    MIN_ELEMENTS,
    JunitDialect,
    parse_junit,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
OK = '<testcase classname="t" name="ok" time="0.1"/>'


def doc(body: str, root: str = "testsuites") -> bytes:
    return f'<?xml version="1.0"?><{root}><testsuite>{body}</testsuite></{root}>'.encode()


def parse(data: bytes, dialect: JunitDialect = JunitDialect.GENERIC) -> TestReport:
    return parse_junit(data, dialect=dialect, tree_root="/work")


# ---- caps -------------------------------------------------------------------------------


def test_size_cap_edge() -> None:
    base = doc(OK)
    padded = base + b" " * (MAX_REPORT_BYTES - len(base))
    assert len(padded) == MAX_REPORT_BYTES
    parse_junit(padded)
    with pytest.raises(ReportError, match="cap"):
        parse_junit(padded + b" ")


def test_element_cap_edge() -> None:
    # testsuites + testsuite + N properties elements; a small report gets the floor
    fill = "<p/>" * (MIN_ELEMENTS - 3)
    parse_junit(doc(OK + fill))
    with pytest.raises(ReportError, match="elements"):
        parse_junit(doc(OK + fill + "<p/>"))


def test_element_cap_follows_the_reports_size() -> None:
    # 120,000 bare elements (4 bytes each) are over size // 8; the same elements with their
    # padding (8 bytes each) are within it: the cap follows the bytes, not a fixed count.
    n = 120_000
    assert n > MIN_ELEMENTS
    assert parse_junit(doc(OK + "<p/>    " * n)).totals.total == 1
    with pytest.raises(ReportError, match="elements"):
        parse_junit(doc(OK + "<p/>" * n))


def test_depth_cap_edge() -> None:
    def nested(levels: int) -> bytes:
        # root is level 1; each testsuite adds one; the testcase is the last level
        inner = "<testsuite>" * (levels - 2) + OK + "</testsuite>" * (levels - 2)
        return f"<testsuites>{inner}</testsuites>".encode()

    assert parse_junit(nested(MAX_DEPTH)).totals.total == 1
    with pytest.raises(ReportError, match="deeper"):
        parse_junit(nested(MAX_DEPTH + 1))


def test_attribute_length_cap_edge() -> None:
    parse_junit(doc(f'<testcase name="{"a" * MAX_ATTRIBUTE_CHARS}"/>'))
    with pytest.raises(ReportError, match="attribute"):
        parse_junit(doc(f'<testcase name="{"a" * (MAX_ATTRIBUTE_CHARS + 1)}"/>'))


def test_attribute_count_cap_edge() -> None:
    attrs = " ".join(f'a{i}="1"' for i in range(MAX_ATTRIBUTES - 1))
    parse_junit(doc(f'<testcase name="x" {attrs}/>'))
    with pytest.raises(ReportError, match="attributes"):
        parse_junit(doc(f'<testcase name="x" {attrs} z="1"/>'))


def test_testcase_cap_edge() -> None:
    """The edge, driven with a small injected cap, across two suites."""
    cap = 10
    two = '<testcase name="t"/>' * 5 + "</testsuite><testsuite>" + '<testcase name="u"/>' * 5
    assert parse_junit(doc(two), max_testcases=cap).totals.total == cap
    with pytest.raises(ReportError, match=f"more than {cap} testcases"):
        parse_junit(doc(two + '<testcase name="v"/>'), max_testcases=cap)


def test_the_default_testcase_cap_is_the_report_models() -> None:
    default = inspect.signature(parse_junit).parameters["max_testcases"].default
    assert default == MAX_TESTCASES == TestReport.model_fields["testcases"].metadata[0].max_length
    with pytest.raises(ValueError, match="max_testcases"):
        parse_junit(doc(OK), max_testcases=MAX_TESTCASES + 1)


@pytest.mark.parametrize(
    "data",
    [
        b'<!DOCTYPE t [<!ENTITY a "aaaa">]><testsuites><testsuite><testcase name="&a;"/>'
        b"</testsuite></testsuites>",
        b'<!DOCTYPE t SYSTEM "x.dtd"><testsuites/>',
        b'<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuites>&x;</testsuites>',
    ],
    ids=["internal-entity", "external-dtd", "external-entity"],
)
def test_dtds_and_entities_are_refused(data: bytes) -> None:
    with pytest.raises(ReportError, match="forbidden"):
        parse_junit(data)


@pytest.mark.parametrize(
    "data",
    [b"", b"   ", b"<testsuites>", b"not xml", b"\xff\xfe<", doc(OK)[:-5], b"<a/>"],
    ids=["empty", "blank", "unclosed", "text", "binary", "truncated", "wrong-root"],
)
def test_unreadable_input_raises_report_error(data: bytes) -> None:
    with pytest.raises(ReportError):
        parse_junit(data)


def test_non_bytes_input_is_refused() -> None:
    with pytest.raises(ReportError, match="bytes"):
        parse_junit("<testsuites/>")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "testcase",
    [
        '<testcase name="a" time="abc"/>',
        '<testcase name="a" time="inf"/>',
        '<testcase name="a" time="-1"/>',
        '<testcase name="a" line="x"/>',
        '<testcase name="a" line="1.5"/>',
        '<testcase name="a" assertions="-2"/>',
    ],
)
def test_non_numeric_testcase_attribute_raises(testcase: str) -> None:
    with pytest.raises(ReportError):
        parse_junit(doc(testcase))


@pytest.mark.parametrize("attr", ["tests", "failures", "errors", "skipped", "time"])
def test_non_numeric_suite_attribute_raises(attr: str) -> None:
    with pytest.raises(ReportError, match=attr):
        parse_junit(f'<testsuites><testsuite {attr}="x">{OK}</testsuite></testsuites>'.encode())


# ---- counting and statuses ----------------------------------------------------------------


def test_testcases_count_at_any_depth_not_from_root_totals() -> None:
    data = (
        '<testsuites tests="0" failures="0"><testsuite><testsuite><testsuite>'
        '<testcase name="deep"><failure/></testcase></testsuite></testsuite>'
        f"{OK}</testsuite></testsuites>"
    ).encode()
    report = parse_junit(data)
    assert report.totals.total == 2
    assert report.totals.failed == 1


@pytest.mark.parametrize(
    ("children", "status"),
    [
        ("", TestStatus.PASSED),
        ("<system-out>x</system-out>", TestStatus.PASSED),
        ("<failure/>", TestStatus.FAILED),
        ('<failure type="AssertionError"/>', TestStatus.FAILED),
        ("<error/>", TestStatus.ERROR),
        ("<skipped/>", TestStatus.SKIPPED),
        ("<skipped/><failure/>", TestStatus.FAILED),
        ("<failure/><error/>", TestStatus.ERROR),
        # issue 12: a failure or error anywhere below the testcase counts; skipped only direct
        ("<system-out><failure/></system-out>", TestStatus.FAILED),
        ('<properties><property name="p"><error/></property></properties>', TestStatus.ERROR),
        ("<skipped/><system-out><failure/></system-out>", TestStatus.FAILED),
        ("<system-out><skipped/></system-out>", TestStatus.PASSED),
    ],
)
def test_status_from_children(children: str, status: TestStatus) -> None:
    report = parse_junit(doc(f'<testcase classname="c" name="n">{children}</testcase>'))
    assert report.testcases[0].status is status


def test_message_prefers_attribute_then_body_then_type() -> None:
    report = parse_junit(
        doc(
            '<testcase name="a"><failure message="m">body</failure></testcase>'
            '<testcase name="b"><failure>  body  </failure></testcase>'
            '<testcase name="c"><failure type="AssertionError"/></testcase>'
            '<testcase name="d"><failure/></testcase>'
        )
    )
    assert [c.message for c in report.testcases] == ["m", "body", "AssertionError", None]


def test_long_message_is_truncated_not_refused() -> None:
    report = parse_junit(doc(f'<testcase name="a"><failure message="{"x" * 9000}"/></testcase>'))
    message = report.testcases[0].message
    assert message is not None
    assert len(message) == 4000
    assert message.endswith("[truncated]")


def test_pytest_line_is_zero_based_and_others_one_based() -> None:
    data = doc('<testcase classname="c" name="n" file="a.py" line="0"/>')
    assert parse(data, JunitDialect.PYTEST).testcases[0].line == 1
    assert parse(data, JunitDialect.BUN).testcases[0].line is None
    data = doc('<testcase classname="c" name="n" file="a.py" line="7"/>')
    assert parse(data, JunitDialect.PYTEST).testcases[0].line == 8
    assert parse(data, JunitDialect.BUN).testcases[0].line == 7


def test_vitest_classname_is_the_file() -> None:
    report = parse_junit(
        doc('<testcase classname="src/a.test.ts" name="n"/>'), dialect=JunitDialect.VITEST
    )
    assert report.testcases[0].file == "src/a.test.ts"


def test_fail_then_teardown_error_keeps_both_testcases() -> None:
    data = (FIXTURES / "junit/pytest-teardown_error/report.xml").read_bytes()
    report = parse_junit(data, dialect=JunitDialect.PYTEST, tree_root="/x")
    first, second = report.testcases[0], report.testcases[1]
    assert first.id == second.id
    assert (first.status, second.status) == (TestStatus.FAILED, TestStatus.ERROR)
    assert report.worst_by_id()[first.id] is TestStatus.ERROR


def test_bun13_retry_duplicates_are_kept_and_a_failed_attempt_counts() -> None:
    data = (FIXTURES / "junit/bun-bun13-retry/report.xml").read_bytes()
    report = parse_junit(data, dialect=JunitDialect.BUN, tree_root="/x")
    assert report.totals.total == 4
    flaky = [c for c in report.testcases if c.name == "fails once then passes"]
    assert [c.status for c in flaky] == [TestStatus.FAILED, TestStatus.PASSED]
    assert report.worst_by_id()[flaky[0].id] is TestStatus.FAILED


def test_bare_testsuite_root_is_accepted() -> None:
    report = parse_junit(f'<testsuite name="pytest" tests="1">{OK}</testsuite>'.encode())
    assert report.totals.total == 1
    assert report.runner == "pytest"


def test_runner_name_comes_from_the_root_name() -> None:
    for name, runner in [("pytest tests", "pytest"), ("bun test", "bun"), ("x", None)]:
        data = f'<testsuites name="{name}"><testsuite>{OK}</testsuite></testsuites>'.encode()
        assert parse_junit(data).runner == runner


# ---- red flags ------------------------------------------------------------------------------


def test_collection_failure_message_is_a_red_flag() -> None:
    data = doc('<testcase classname="" name="m"><error message="collection failure"/></testcase>')
    assert RedFlag.COLLECTION_ERROR in parse_junit(data).red_flags


def test_pytest_error_without_classname_is_a_collection_error() -> None:
    data = doc('<testcase classname="" name="pkg"><error message="other"/></testcase>')
    assert RedFlag.COLLECTION_ERROR in parse(data, JunitDialect.PYTEST).red_flags
    assert RedFlag.COLLECTION_ERROR not in parse(data, JunitDialect.BUN).red_flags
    data = doc('<testcase classname="m" name="t"><error message="teardown"/></testcase>')
    assert RedFlag.COLLECTION_ERROR not in parse(data, JunitDialect.PYTEST).red_flags


def test_vitest_load_error_testcase_is_a_red_flag() -> None:
    data = doc('<testcase classname="a.test.js" name="a.test.js"><failure/></testcase>')
    assert RedFlag.LOAD_ERROR in parse(data, JunitDialect.VITEST).red_flags
    data = doc('<testcase classname="a.test.js" name="real"><failure/></testcase>')
    assert RedFlag.LOAD_ERROR not in parse(data, JunitDialect.VITEST).red_flags


def test_testcase_less_report_is_a_red_flag() -> None:
    assert parse_junit(b"<testsuites/>").red_flags == (RedFlag.NO_TESTCASES,)


def test_nameless_testcase_is_a_red_flag() -> None:
    assert RedFlag.NAMELESS_TESTCASE in parse_junit(doc('<testcase time="0"/>')).red_flags
    assert RedFlag.NAMELESS_TESTCASE not in parse_junit(doc(OK)).red_flags


def test_declared_totals_mismatch_is_a_red_flag() -> None:
    def flags(root_attrs: str, body: str) -> tuple[RedFlag, ...]:
        data = f"<testsuites {root_attrs}><testsuite>{body}</testsuite></testsuites>"
        return parse_junit(data.encode()).red_flags

    assert RedFlag.TOTALS_MISMATCH not in flags('tests="1" failures="0"', OK)
    assert RedFlag.TOTALS_MISMATCH in flags('tests="2" failures="0"', OK)  # hidden test
    assert RedFlag.TOTALS_MISMATCH in flags('tests="1" failures="1"', OK)  # hidden failure
    # more failures counted than declared: we have the evidence, no flag
    failing = '<testcase name="x"><failure/></testcase>'
    assert RedFlag.TOTALS_MISMATCH not in flags('tests="1" failures="0"', failing)


def test_suite_totals_are_summed_when_the_root_is_silent() -> None:
    data = (
        f'<testsuites><testsuite tests="1">{OK}</testsuite>'
        f'<testsuite tests="2">{OK}</testsuite></testsuites>'
    ).encode()
    assert RedFlag.TOTALS_MISMATCH in parse_junit(data).red_flags


# ---- placement (issue 12): checked on the open-element stack while streaming ---------------


@pytest.mark.parametrize("holder", ["properties", "system-out", "failure"])
def test_testcase_not_directly_in_a_suite_is_refused(holder: str) -> None:
    data = f"<testsuites><testsuite><{holder}>{OK}</{holder}>{OK}</testsuite></testsuites>"
    with pytest.raises(ReportError, match=f"inside <{holder}>, not a suite"):
        parse_junit(data.encode())


@pytest.mark.parametrize("hidden_first", [True, False])
def test_testcase_outside_every_counted_suite_is_refused_in_either_order(
    hidden_first: bool,
) -> None:
    # The streaming reader meets the uncounted testcase before or after the first total.
    counted = f'<testsuite tests="1">{OK}</testsuite>'
    hidden = f"<testsuite><testsuite>{OK}</testsuite></testsuite>"
    body = hidden + counted if hidden_first else counted + hidden
    with pytest.raises(ReportError, match="outside any suite that declares its totals"):
        parse_junit(f"<testsuites>{body}</testsuites>".encode())


def test_without_any_totals_every_testcase_counts() -> None:
    data = f"<testsuites><testsuite>{OK}</testsuite><testsuite><testsuite>{OK}"
    data += "</testsuite></testsuite></testsuites>"
    report = parse_junit(data.encode())
    assert (report.totals.total, report.red_flags) == (2, ())


def test_outermost_counted_suites_below_a_silent_one_are_summed() -> None:
    def flags(declared: int) -> tuple[RedFlag, ...]:
        inner = f'<testsuite tests="{declared}">{OK}</testsuite>'
        data = f"<testsuites><testsuite>{inner}{inner}</testsuite></testsuites>"
        return parse_junit(data.encode()).red_flags

    assert RedFlag.TOTALS_MISMATCH not in flags(1)
    assert RedFlag.TOTALS_MISMATCH in flags(2)  # 4 declared, 2 testcases


def test_a_late_uncounted_testcase_is_refused_across_many_read_chunks() -> None:
    # Far past the parser's first reads: the check holds state, not the document.
    many = f'<testsuite tests="30000">{OK * 30_000}</testsuite>'
    data = f"<testsuites>{many}<testsuite>{OK}</testsuite></testsuites>".encode()
    assert len(data) > 1024 * 1024
    assert parse_junit(f"<testsuites>{many}</testsuites>".encode()).totals.total == 30_000
    with pytest.raises(ReportError, match="outside any suite"):
        parse_junit(data)


# ---- fuzzing: only ReportError or a report, never another exception --------------------------


def _mutations(data: bytes, rng: random.Random) -> list[bytes]:
    out = []
    for _ in range(60):
        cut = rng.randrange(len(data) + 1)
        pos = rng.randrange(max(len(data), 1))
        out.append(data[:cut])
        out.append(data[:pos] + bytes([rng.randrange(256)]) + data[pos + 1 :])
        junk = rng.choice([b"<", b"&", b'"', b"<!DOCTYPE x>", b"\x00"])
        out.append(data[:pos] + junk + data[pos:])
    return out


def test_fuzzed_real_reports_never_raise_anything_else() -> None:
    rng = random.Random(20240601)
    inputs = sorted((FIXTURES / "junit").glob("*/report.xml"))
    assert inputs
    for path in inputs:
        for data in _mutations(path.read_bytes(), rng):
            with contextlib.suppress(ReportError):
                parse_junit(data, dialect=JunitDialect.PYTEST)
