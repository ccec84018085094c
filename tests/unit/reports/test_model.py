"""TestReport model: bounded strings, escaping, ids, totals, enums."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from verify_pr.models.report import (
    ID_MAX_CHARS,
    MESSAGE_MAX_CHARS,
    NAME_MAX_CHARS,
    TRUNCATION_MARKER,
    RedFlag,
    ReportFormat,
    TestCase,
    TestReport,
    TestStatus,
    clean_text,
    make_test_id,
)


def case(name: str = "n", status: TestStatus = TestStatus.PASSED, **kw: object) -> TestCase:
    args: dict[str, object] = {"classname": "c", "file": "f.py", "line": 1, "status": status}
    args.update(kw)
    return TestCase.build(name=name, **args)  # type: ignore[arg-type]


def test_truncation_edges() -> None:
    assert case("a" * NAME_MAX_CHARS).name == "a" * NAME_MAX_CHARS
    cut = case("a" * (NAME_MAX_CHARS + 1)).name
    assert len(cut) == NAME_MAX_CHARS
    assert cut.endswith(TRUNCATION_MARKER)
    msg = case(message="m" * 10 * MESSAGE_MAX_CHARS).message
    assert msg is not None
    assert len(msg) == MESSAGE_MAX_CHARS


def test_long_ids_stay_distinct_and_bounded() -> None:
    a = make_test_id("f", "c", "x" * 5000 + "1")
    b = make_test_id("f", "c", "x" * 5000 + "2")
    assert len(a) == len(b) == ID_MAX_CHARS
    assert a != b
    assert make_test_id("f", "c", "x" * 5000 + "1") == a  # stable


def test_id_joins_file_classname_name() -> None:
    assert make_test_id("a.py", "A", "t") == "a.py::A::t"
    assert make_test_id(None, None, "t") == "::::t"


def test_controls_and_bidi_are_escaped_tab_newline_kept() -> None:
    assert clean_text("a\x1b[0m\x00\x7f\x9b\u202e\u2066\t\n", 100) == (
        "a\\x1b[0m\\x00\\x7f\\x9b\\u202e\\u2066\t\n"
    )
    assert clean_text("\ud800x", 10) == "?x"
    assert json.loads(case("\ud800").model_dump_json())["name"] == "?"


def test_totals_are_checked_on_validation() -> None:
    report = TestReport.build(format=ReportFormat.JUNIT, testcases=[case(status=TestStatus.FAILED)])
    data = report.model_dump(mode="json")
    data["totals"]["failed"] = 0
    data["totals"]["passed"] = 1
    with pytest.raises(ValidationError, match="totals"):
        TestReport.model_validate_json(json.dumps(data))


def test_red_flags_must_not_repeat_and_build_deduplicates() -> None:
    r = TestReport.build(
        format=ReportFormat.JUNIT,
        testcases=[case()],
        red_flags=[RedFlag.INTERRUPTED, RedFlag.INTERRUPTED],
    )
    assert r.red_flags == (RedFlag.INTERRUPTED,)
    data = r.model_dump(mode="json")
    data["red_flags"] = ["interrupted", "interrupted"]
    with pytest.raises(ValidationError):
        TestReport.model_validate_json(json.dumps(data))


def test_extra_fields_refused() -> None:
    data = TestReport.build(format=ReportFormat.JUNIT, testcases=[case()]).model_dump(mode="json")
    data["verdict"] = "pass"
    with pytest.raises(ValidationError):
        TestReport.model_validate_json(json.dumps(data))


@pytest.mark.parametrize("line", [0, -1])
def test_line_is_one_based(line: int) -> None:
    with pytest.raises(ValidationError):
        case(line=line)


def test_worst_by_id_walks_every_status() -> None:
    order = [
        TestStatus.NOT_RUN,
        TestStatus.SKIPPED,
        TestStatus.PASSED,
        TestStatus.EXPECTED_FAILURE,
        TestStatus.FAILED,
        TestStatus.ERROR,
    ]
    assert set(order) == set(TestStatus)
    for i, worst in enumerate(order):
        cases = [case(status=s) for s in order[: i + 1]]
        for arrangement in (cases, cases[::-1]):
            report = TestReport.build(format=ReportFormat.JUNIT, testcases=arrangement)
            assert report.worst_by_id() == {"f.py::c::n": worst}


def test_every_red_flag_has_a_distinct_readable_value() -> None:
    values = [f.value for f in RedFlag]
    assert len(set(values)) == len(values)
    assert all(v and v == v.lower() for v in values)


def test_totals_executed_excludes_skipped() -> None:
    r = TestReport.build(
        format=ReportFormat.JUNIT, testcases=[case(status=TestStatus.SKIPPED), case("m")]
    )
    assert r.totals.executed == 1
