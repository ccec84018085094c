"""Expected failures are a status of their own: read from pytest's report, from the line that
declares a JS test, and judged as neither a pass nor a failure."""

from __future__ import annotations

import os
from pathlib import Path

from tests.unit.verify.helpers import box
from verify_pr.models.report import ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.verdict import Verdict
from verify_pr.reports.junit import EXPECTED_FAILURE_PROPERTY, JunitDialect, parse_junit
from verify_pr.verify.runs import expected_failures
from verify_pr.verify.runs.rules import judge

P, F, S, X = (
    TestStatus.PASSED,
    TestStatus.FAILED,
    TestStatus.SKIPPED,
    TestStatus.EXPECTED_FAILURE,
)
PROPERTY = f'<properties><property name="{EXPECTED_FAILURE_PROPERTY}" value="true"/></properties>'


def statuses(body: str) -> dict[str, TestStatus]:
    data = f'<?xml version="1.0"?><testsuites><testsuite>{body}</testsuite></testsuites>'.encode()
    report = parse_junit(data, dialect=JunitDialect.PYTEST, tree_root="/work")
    return {c.name: c.status for c in report.testcases}


def test_pytest_xfail_and_the_bootstraps_property_are_expected_failures() -> None:
    got = statuses(
        '<testcase classname="m" name="xfailed"><skipped type="pytest.xfail" message="bug"/>'
        "</testcase>"
        f'<testcase classname="m" name="xpassed">{PROPERTY}</testcase>'
        f'<testcase classname="m" name="marked_skip">{PROPERTY}<skipped/></testcase>'
        # controls: a plain pass and a plain skip keep their status
        '<testcase classname="m" name="plain"/>'
        '<testcase classname="m" name="skip"><skipped type="pytest.skip" message="no"/></testcase>'
    )
    assert got == {"xfailed": X, "xpassed": X, "marked_skip": X, "plain": P, "skip": S}


def test_a_failure_stays_a_failure_whatever_it_is_marked() -> None:
    got = statuses(
        f'<testcase classname="m" name="strict"><failure message="[XPASS(strict)] r"/></testcase>'
        f'<testcase classname="m" name="marked">{PROPERTY}<failure message="boom"/></testcase>'
        f'<testcase classname="m" name="err">{PROPERTY}<error message="boom"/></testcase>'
        '<testcase classname="m" name="other"><properties><property name="x" value="true"/>'
        "</properties></testcase>"
    )
    assert got == {"strict": F, "marked": F, "err": TestStatus.ERROR, "other": P}


def case(file: str | None, line: int | None, status: TestStatus = P, name: str = "t") -> TestCase:
    return TestCase.build(name=name, classname=None, file=file, line=line, status=status)


def report(*cases: TestCase) -> TestReport:
    return TestReport.build(format=ReportFormat.JEST_JSON, testcases=cases)


JS = (
    'test("plain", () => {});\n'  # 1
    'test.failing("bug", () => { throw 1; });\n'  # 2
    'it.fails("v", () => { throw 1; });\n'  # 3
    'test.failing.each([1])("each %s", () => { throw 1; });\n'  # 4
    'test["failing"]("quoted", () => { throw 1; });\n'  # 5
    'test("mentions failing in its name", () => {});\n'  # 6
)


def test_a_passing_test_declared_with_a_marker_is_an_expected_failure(tmp_path: Path) -> None:
    (tmp_path / "a.test.js").write_text(JS)
    cases = [case("a.test.js", n, name=f"t{n}") for n in range(1, 7)]
    cases.append(case("a.test.js", 2, F, name="unexpected pass"))
    marked = expected_failures.mark(report(*cases), tmp_path)
    got = {c.name: c.status for c in marked.testcases}
    assert got == {"t1": P, "t2": X, "t3": X, "t4": X, "t5": X, "t6": P, "unexpected pass": F}
    assert marked.totals.expected_failure == 4
    assert marked.totals.executed == 3


def test_nothing_marked_returns_the_same_report(tmp_path: Path) -> None:
    (tmp_path / "a.test.js").write_text(JS)
    plain = report(case("a.test.js", 1), case(None, None, name="nowhere"), case("gone.js", 2))
    assert expected_failures.mark(plain, tmp_path) is plain


def test_files_outside_the_tree_are_never_read(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (outside / "x.test.js").write_text(JS)
    os.symlink(outside / "x.test.js", tree / "out.test.js")
    (tree / "in.test.js").write_text(JS)
    os.symlink("in.test.js", tree / "link.test.js")
    got = expected_failures.mark(
        report(
            case("out.test.js", 2, name="out"),
            case("../outside/x.test.js", 2, name="dotdot"),
            case("link.test.js", 2, name="inner link"),  # control: a link inside the tree
        ),
        tree,
    )
    assert {c.name: c.status for c in got.testcases} == {"out": P, "dotdot": P, "inner link": X}


def test_expected_failures_alone_are_not_a_pass_and_beside_a_pass_do_not_fail_it() -> None:
    only = report(case("a.js", 1, X, name="a"), case("a.js", 2, X, name="b"))
    judged = judge(box(), b"", only, None, [])
    assert judged.verdict is Verdict.NOT_PROVEN
    assert "no test was executed" in judged.reasons[0]
    mixed = report(case("a.js", 1, X, name="a"), case("a.js", 2, P, name="b"))
    assert judge(box(), b"", mixed, None, []).verdict is Verdict.PASS


PY = (
    "import pytest\n"  # 1
    "\n"  # 2
    "@pytest.mark.xfail(reason='bug')\n"  # 3
    "def test_marked():\n"  # 4
    "    assert True\n"  # 5
    "\n"  # 6
    "@pytest.mark.parametrize(\n"  # 7
    "    'x', [1],\n"  # 8
    ")\n"  # 9
    "@pytest.mark.xfail\n"  # 10
    "def test_multiline(x):\n"  # 11
    "    pass\n"  # 12
    "x = 'xfail'\n"  # 13
    "def test_after_a_statement():\n"  # 14
    "    pass\n"  # 15
    "class TestC:\n"  # 16
    "    @pytest.mark.xfail\n"  # 17
    "    def test_method(self):\n"  # 18
    "        pass\n"  # 19
    "        pytest.xfail('in the body of the method above')\n"  # 20
    "    def test_plain(self):\n"  # 21
    "        pass\n"  # 22
)


def test_a_python_test_under_an_xfail_decorator_is_an_expected_failure(tmp_path: Path) -> None:
    # what an own command's JUnit says of a non-strict XPASS: a plain pass at the def's line
    (tmp_path / "test_m.py").write_text(PY)
    lines = {"marked": 4, "multiline": 11, "after": 14, "method": 18, "plain": 21}
    got = expected_failures.mark(
        report(*(case("test_m.py", n, name=name) for name, n in lines.items())), tmp_path
    )
    assert {c.name: c.status for c in got.testcases} == {
        "marked": X,
        "multiline": X,
        "after": P,  # the statement above is not a decorator
        "method": X,
        "plain": P,  # the previous method's body is not a decorator
    }
