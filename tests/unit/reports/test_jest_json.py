"""jest/vitest JSON parser: caps, strict types, red flags, load errors, locations."""

from __future__ import annotations

import contextlib
import copy
import inspect
import json
import random
from pathlib import Path
from typing import Any

import pytest

from verify_pr.errors import ReportError
from verify_pr.models.report import MAX_TESTCASES, RedFlag, ReportFormat, TestReport, TestStatus
from verify_pr.reports._common import MAX_REPORT_BYTES
from verify_pr.reports.jest_json import (
    LOAD_ERROR_NAME,
    MAX_SUITES,
    JsonDialect,
    parse_jest_json,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def assertion(title: str = "t", status: str = "passed", **extra: Any) -> dict[str, Any]:
    return {
        "ancestorTitles": ["group"],
        "title": title,
        "status": status,
        "failureMessages": [],
        **extra,
    }


def report(suites: list[dict[str, Any]] | None = None, **top: Any) -> dict[str, Any]:
    suites = suites if suites is not None else [suite([assertion()])]
    tests = [a for s in suites for a in s["assertionResults"]]
    base = {
        "success": not any(a["status"] == "failed" for a in tests),
        "numTotalTests": len(tests),
        "numFailedTests": sum(a["status"] == "failed" for a in tests),
        "numFailedTestSuites": 0,
        "numRuntimeErrorTestSuites": 0,
        "wasInterrupted": False,
        "testResults": suites,
    }
    base.update(top)
    return base


def suite(
    assertions: list[dict[str, Any]],
    status: str = "passed",
    message: str = "",
    name: str = "/work/src/a.test.js",
) -> dict[str, Any]:
    return {"name": name, "status": status, "message": message, "assertionResults": assertions}


def parse(obj: Any, dialect: JsonDialect = JsonDialect.JEST) -> TestReport:
    return parse_jest_json(json.dumps(obj).encode(), dialect=dialect, tree_root="/work")


def test_clean_report() -> None:
    r = parse(report())
    assert r.format is ReportFormat.JEST_JSON
    assert r.red_flags == ()
    case = r.testcases[0]
    assert (case.file, case.classname, case.name, case.id) == (
        "src/a.test.js",
        "group",
        "t",
        "src/a.test.js::group::t",
    )


def test_size_cap_edge() -> None:
    data = json.dumps(report()).encode()
    padded = data + b" " * (MAX_REPORT_BYTES - len(data))
    parse_jest_json(padded)
    with pytest.raises(ReportError, match="cap"):
        parse_jest_json(padded + b" ")


def _parse_capped(obj: Any, cap: int) -> TestReport:
    return parse_jest_json(json.dumps(obj).encode(), tree_root="/work", max_testcases=cap)


def test_assertion_cap_edge() -> None:
    """The edge, driven with a small injected cap: the results of all suites count together."""
    cap = 10
    ok = report([suite([assertion()] * 5), suite([assertion()] * 5)])
    assert _parse_capped(ok, cap).totals.total == cap
    over = report([suite([assertion()] * 5), suite([assertion()] * 6)])
    with pytest.raises(ReportError, match=f"more than {cap} test results"):
        _parse_capped(over, cap)


def test_the_default_assertion_cap_is_the_report_models() -> None:
    default = inspect.signature(parse_jest_json).parameters["max_testcases"].default
    assert default == MAX_TESTCASES == TestReport.model_fields["testcases"].metadata[0].max_length
    with pytest.raises(ValueError, match="max_testcases"):
        _parse_capped(report(), MAX_TESTCASES + 1)


def test_suite_cap_edge() -> None:
    parse(report([suite([])] * MAX_SUITES))
    with pytest.raises(ReportError, match="testResults"):
        parse(report([suite([])] * (MAX_SUITES + 1)))


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("success", "true"),
        ("success", 1),
        ("numFailedTests", "0"),
        ("numFailedTests", 0.0),
        ("numFailedTests", -1),
        ("numTotalTests", None),
        ("wasInterrupted", 0),
        ("testResults", {}),
        ("numRuntimeErrorTestSuites", True),
    ],
)
def test_wrong_types_raise(key: str, value: Any) -> None:
    obj = report()
    obj[key] = value
    with pytest.raises(ReportError):
        parse(obj)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("status", "focused"),
        ("title", 3),
        ("ancestorTitles", "g"),
        ("duration", -1),
        ("failureMessages", [1]),
        ("location", {"line": "3"}),
    ],
)
def test_wrong_assertion_types_raise(key: str, value: Any) -> None:
    a = assertion()
    a[key] = value
    with pytest.raises(ReportError):
        parse(report([suite([a])]))


@pytest.mark.parametrize("key", ["numRuntimeErrorTestSuites", "wasInterrupted"])
def test_jest_requires_its_keys_and_vitest_does_not(key: str) -> None:
    obj = report()
    del obj[key]
    with pytest.raises(ReportError, match="missing"):
        parse(obj, JsonDialect.JEST)
    assert parse(obj, JsonDialect.VITEST).format is ReportFormat.VITEST_JSON


def test_extra_keys_are_ignored() -> None:
    obj = report()
    obj["openHandles"] = [{"x": 1}]
    obj["testResults"][0]["assertionResults"][0]["meta"] = {"a": 1}
    assert parse(obj).red_flags == ()


@pytest.mark.parametrize("data", [b"", b"[]", b"{", b"null", b'{"success": true}', b"\xff"])
def test_unreadable_input_raises(data: bytes) -> None:
    with pytest.raises(ReportError):
        parse_jest_json(data)


def test_deep_nesting_raises_report_error() -> None:
    with pytest.raises(ReportError):
        parse_jest_json(b'{"x":' + b"[" * 100_000 + b"]" * 100_000 + b"}")


def test_statuses() -> None:
    statuses = ["passed", "failed", "skipped", "pending", "todo", "disabled"]
    r = parse(report([suite([assertion(s, s) for s in statuses])]))
    assert [c.status for c in r.testcases] == [
        TestStatus.PASSED,
        TestStatus.FAILED,
        TestStatus.SKIPPED,
        TestStatus.SKIPPED,
        TestStatus.SKIPPED,
        TestStatus.SKIPPED,
    ]


def test_location_line_and_duration() -> None:
    a = assertion(location={"line": 12, "column": 3}, duration=1500)
    b = assertion("u", location={"line": 0, "column": 0})
    r = parse(report([suite([a, b])]))
    assert r.testcases[0].line == 12
    assert r.testcases[0].duration_s == 1.5
    assert r.testcases[1].line is None


@pytest.mark.parametrize("status", ["todo", "pending", "skipped", "disabled", "passed"])
def test_a_case_with_failure_messages_is_failed_whatever_its_status(status: str) -> None:
    # issue 12: a failed test relabelled todo/pending/skipped keeps its failure evidence
    case = parse(report([suite([assertion(status=status, failureMessages=["boom"])])]))
    assert (case.testcases[0].status, case.testcases[0].message) == (TestStatus.FAILED, "boom")


_FAILING = json.dumps(
    report([suite([assertion(status="failed", failureMessages=["x"])], status="failed")])
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the top level and a suite are walked key by key (a set of keys per open object)
        ('"testResults"', '"success": true, "testResults"'),
        ('"message": ""', '"message": "", "status": "passed"'),
        # an assertion result is one value decoded whole (the pairs hook)
        ('"failureMessages": ["x"]', '"failureMessages": ["x"], "status": "passed"'),
    ],
)
def test_a_key_twice_in_one_object_is_refused_at_any_level(old: str, new: str) -> None:
    assert _FAILING.count(old) == 1
    parse_jest_json(_FAILING.encode())  # the control: the same report once is read
    with pytest.raises(ReportError, match=r"key '(success|status)' appears twice in one object"):
        parse_jest_json(_FAILING.replace(old, new).encode())


def test_a_repeated_key_after_megabytes_of_results_is_refused() -> None:
    # The stream holds one suite at a time; the top level's own keys still catch the repeat.
    text = json.dumps(report([suite([assertion(f"t{i}") for i in range(20_000)])]))
    assert len(text) > 1024 * 1024
    parse_jest_json(text.encode())
    with pytest.raises(ReportError, match="key 'success' appears twice in one object"):
        parse_jest_json((text[:-1] + ', "success": true}').encode())


def test_failure_messages_joined() -> None:
    a = assertion(status="failed", failureMessages=["one", "two"])
    assert parse(report([suite([a], status="failed")])).testcases[0].message == "one\ntwo"


# ---- red flags ------------------------------------------------------------------------------


def test_load_error_becomes_an_error_testcase_and_a_red_flag() -> None:
    broken = suite([], status="failed", message="Cannot find module", name="/work/b.test.js")
    r = parse(report([suite([assertion()]), broken], numFailedTestSuites=1, success=False))
    assert RedFlag.LOAD_ERROR in r.red_flags
    load = r.testcases[-1]
    assert (load.name, load.file, load.status, load.message) == (
        LOAD_ERROR_NAME,
        "b.test.js",
        TestStatus.ERROR,
        "Cannot find module",
    )
    assert RedFlag.NOT_SUCCESS not in r.red_flags  # the error testcase is the evidence


def test_failed_suite_with_failed_assertion_is_not_a_load_error() -> None:
    r = parse(report([suite([assertion(status="failed")], status="failed")]))
    assert RedFlag.LOAD_ERROR not in r.red_flags


def test_runtime_error_suites_flag() -> None:
    assert RedFlag.RUNTIME_ERROR_SUITES in parse(report(numRuntimeErrorTestSuites=1)).red_flags
    assert RedFlag.RUNTIME_ERROR_SUITES not in parse(report()).red_flags


def test_interrupted_flag() -> None:
    assert RedFlag.INTERRUPTED in parse(report(wasInterrupted=True)).red_flags


def test_not_success_flag() -> None:
    assert RedFlag.NOT_SUCCESS in parse(report(success=False)).red_flags


@pytest.mark.parametrize(
    "top", [{"numTotalTests": 2}, {"numFailedTests": 1}], ids=["total", "failed"]
)
def test_totals_mismatch_flag(top: dict[str, Any]) -> None:
    assert RedFlag.TOTALS_MISMATCH in parse(report(**top)).red_flags


def test_success_with_a_failed_test_is_a_mismatch() -> None:
    r = parse(report([suite([assertion(status="failed")])], success=True))
    assert RedFlag.TOTALS_MISMATCH in r.red_flags
    assert r.totals.failed == 1


def test_no_tests_flag() -> None:
    assert parse(report([], success=True)).red_flags == (RedFlag.NO_TESTCASES,)


def test_file_outside_tree_root_is_none_but_kept_in_the_load_error() -> None:
    broken = suite([], status="failed", message="x", name="/elsewhere/b.test.js")
    r = parse(report([broken], success=False))
    assert r.testcases[0].file == "/elsewhere/b.test.js"  # only the stand-in keeps it
    r = parse(report([suite([assertion()], name="/elsewhere/a.test.js")]))
    assert r.testcases[0].file is None


def test_fuzzed_real_reports_never_raise_anything_else() -> None:
    rng = random.Random(7)
    for path in sorted((FIXTURES / "jest-json").glob("[jv]*/report.json")):
        data = path.read_bytes()
        for _ in range(40):
            pos = rng.randrange(len(data))
            for variant in (data[:pos], data[:pos] + bytes([rng.randrange(256)]) + data[pos + 1 :]):
                with contextlib.suppress(ReportError):
                    parse_jest_json(variant, dialect=JsonDialect.VITEST)


def test_fuzzed_values_never_raise_anything_else() -> None:
    rng = random.Random(11)
    base = json.loads((FIXTURES / "jest-json/jest-fail/report.json").read_text())
    weird: list[Any] = [None, True, -1, 1.5, "x", [], {}, [None], 2**70, "\u0000"]
    for _ in range(300):
        obj = copy.deepcopy(base)
        node: Any = obj
        path = []
        while isinstance(node, (dict, list)) and node and rng.random() < 0.7:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            path.append((node, key))
            node = node[key]
        if path:
            parent, key = path[-1]
            parent[key] = rng.choice(weird)
        with contextlib.suppress(ReportError):
            parse(obj)
