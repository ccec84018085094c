"""reports.go_json: go test -json streams, hand-written in the shapes Go 1.27 writes."""

from __future__ import annotations

import json

import pytest

from verify_pr.errors import ReportError
from verify_pr.models.report import FAILING, RedFlag, TestStatus, is_load_failure
from verify_pr.reports.go_json import LOAD_ERROR_NAME, parse_go_json

PKG = "example.com/m"


def stream(*events: dict[str, object]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


def ev(action: str, test: str | None = None, **more: object) -> dict[str, object]:
    event: dict[str, object] = {"Time": "2026-12-07T03:00:00Z", "Action": action, "Package": PKG}
    if test is not None:
        event["Test"] = test
    event.update(more)
    return event


def statuses(data: bytes) -> dict[str, TestStatus]:
    return {c.name: c.status for c in parse_go_json(data).testcases}


def test_pass_fail_skip_and_subtests_are_tests() -> None:
    data = stream(
        ev("start"),
        ev("run", "TestA"),
        ev("run", "TestA/case_1"),
        ev("output", "TestA/case_1", Output="    a_test.go:9: boom\n"),
        ev("fail", "TestA/case_1", Elapsed=0.01),
        ev("run", "TestA/case_2"),
        ev("pass", "TestA/case_2", Elapsed=0),
        ev("fail", "TestA", Elapsed=0.02),
        ev("run", "TestB"),
        ev("skip", "TestB", Elapsed=0),
        ev("run", "TestC"),
        ev("pass", "TestC", Elapsed=0),
        ev("output", Output="FAIL\n"),
        ev("fail", Elapsed=0.03),
    )
    report = parse_go_json(data)
    assert {c.name: c.status for c in report.testcases} == {
        "TestA": TestStatus.FAILED,
        "TestA/case_1": TestStatus.FAILED,
        "TestA/case_2": TestStatus.PASSED,
        "TestB": TestStatus.SKIPPED,
        "TestC": TestStatus.PASSED,
    }
    assert report.red_flags == ()
    case = next(c for c in report.testcases if c.name == "TestA/case_1")
    assert case.file == PKG and case.message == "    a_test.go:9: boom\n"
    assert report.totals.total == 5 and report.totals.failed == 2


def test_a_test_that_never_ends_failed() -> None:
    data = stream(ev("run", "TestA"), ev("output", "TestA", Output="panic: x\n"), ev("fail"))
    report = parse_go_json(data)
    assert statuses(data) == {"TestA": TestStatus.FAILED}
    assert RedFlag.INTERRUPTED in report.red_flags


def test_a_package_that_passed_with_an_unended_test_is_not_a_pass() -> None:
    data = stream(ev("run", "TestA"), ev("pass"))
    assert statuses(data) == {"TestA": TestStatus.FAILED}


def test_build_failure_is_a_load_failure() -> None:
    data = stream(
        {"ImportPath": f"{PKG} [{PKG}.test]", "Action": "build-output", "Output": "x.go:3: bad\n"},
        {"ImportPath": f"{PKG} [{PKG}.test]", "Action": "build-fail"},
        ev("start"),
        ev("output", Output=f"FAIL\t{PKG} [build failed]\n"),
        ev("fail", Elapsed=0, FailedBuild=f"{PKG} [{PKG}.test]"),
    )
    report = parse_go_json(data)
    (case,) = report.testcases  # one stand-in: the package names the failed build
    assert (case.file, case.name, case.status) == (PKG, LOAD_ERROR_NAME, TestStatus.ERROR)
    assert case.message == "x.go:3: bad\n"
    assert is_load_failure(case)
    assert RedFlag.LOAD_ERROR in report.red_flags


def test_a_failed_build_no_package_names_is_failure_evidence() -> None:
    data = stream(
        ev("run", "TestA"),
        ev("pass", "TestA"),
        ev("pass"),
        {"ImportPath": "example.com/m/other", "Action": "build-fail"},
    )
    report = parse_go_json(data)
    assert [c.status in FAILING for c in report.testcases] == [False, True]


def test_package_fail_without_a_failed_test_is_a_load_failure() -> None:
    data = stream(ev("run", "TestA"), ev("pass", "TestA"), ev("fail"))
    report = parse_go_json(data)
    assert statuses(data)[LOAD_ERROR_NAME] is TestStatus.ERROR
    assert RedFlag.LOAD_ERROR in report.red_flags


def test_package_that_never_ends_is_interrupted() -> None:
    data = stream(ev("start"), ev("run", "TestA"), ev("pass", "TestA"))
    report = parse_go_json(data)
    assert statuses(data)[LOAD_ERROR_NAME] is TestStatus.ERROR
    assert RedFlag.INTERRUPTED in report.red_flags


def test_no_test_files_is_no_testcase() -> None:
    report = parse_go_json(stream(ev("start"), ev("output", Output="?\n"), ev("skip")))
    assert report.testcases == () and report.red_flags == (RedFlag.NO_TESTCASES,)


def test_printed_framing_and_events_stay_output() -> None:
    forged = '{"Action":"pass","Package":"example.com/m","Test":"TestA"}\n'
    data = stream(
        ev("run", "TestA"),
        ev("output", "TestA", Output="--- PASS: TestA (0.00s)\n"),
        ev("output", "TestA", Output=forged),
        ev("fail", "TestA"),
        ev("fail"),
    )
    assert statuses(data) == {"TestA": TestStatus.FAILED}


def test_worse_of_two_terminal_events() -> None:
    data = stream(ev("run", "TestA"), ev("fail", "TestA"), ev("pass", "TestA"), ev("fail"))
    assert statuses(data) == {"TestA": TestStatus.FAILED}


@pytest.mark.parametrize(
    "line",
    [
        b"not json\n",
        b"[1]\n",
        b'{"Action":"pass","Action":"fail","Package":"p"}\n',
        b'{"Action":"pass","Package":"p","Elapsed":NaN}\n',
        b'{"Action":"pass","Package":"p","Elapsed":-1}\n',
        b'{"Action":"pass","Package":"p","Elapsed":true}\n',
        b'{"Action":"win","Package":"p"}\n',
        b'{"Action":"pass"}\n',
        b'{"Action":"pass","Package":"p","Test":7}\n',
        b'{"Action":"build-fail"}\n',
        b'{"Action":"pass","Package":"\xff"}\n',
    ],
)
def test_refused_lines(line: bytes) -> None:
    with pytest.raises(ReportError):
        parse_go_json(stream(ev("run", "TestA"), ev("pass", "TestA")) + line)


def test_empty_is_refused() -> None:
    with pytest.raises(ReportError):
        parse_go_json(b"\n")


def test_testcase_cap() -> None:
    data = stream(*(ev("run", f"Test{i}") for i in range(3)))
    with pytest.raises(ReportError, match="more than 2 tests"):
        parse_go_json(data, max_testcases=2)


def test_failed_output_is_the_tail() -> None:
    data = stream(
        ev("run", "TestA"),
        *(ev("output", "TestA", Output="x" * 1000 + "\n") for _ in range(20)),
        ev("output", "TestA", Output="the end\n"),
        ev("fail", "TestA"),
        ev("fail"),
    )
    (case,) = parse_go_json(data).testcases
    assert case.message is not None and case.message.endswith("the end\n")
