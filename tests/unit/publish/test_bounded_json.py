"""``publish.bounded_json``: the byte scan counts only structure outside strings, and the walk
stops at the first bad item; honest documents pass unchanged."""

from __future__ import annotations

import json

import pytest

from tests.action.compare_builders import compare_result
from verify_pr.models.compare import CompareResult
from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.publish.bounded_json import JsonLimits, JsonRefused, load_model, scan

TIGHT = JsonLimits(max_depth=3, max_containers=4, max_values=10, max_keys=3, max_items=5)


def _verdict(name: str = "test_ok") -> VerdictFile:
    case = TestCase.build(name=name, classname=None, file="t.py", line=1, status=TestStatus.PASSED)
    return VerdictFile(
        verdict=Verdict.PASS,
        reasons=("1 test(s) executed",),
        runner="pytest",
        runner_version=None,
        command="pytest",
        totals=Totals.count((case,)),
        testcases=(case,),
        sandbox=SandboxResult(
            status=RunStatus.COMPLETED,
            exit_code=0,
            output_truncated=False,
            detail="",
            image="i",
            timeout_s=60,
            report=ReportStatus.RETURNED,
        ),
    )


@pytest.mark.parametrize(
    "text",
    [
        '["[[[[[[", "{{{{,,,,,,,,,,,,,,"]',  # brackets and commas inside strings are not structure
        '["a\\"[[[[[[", "b\\\\"]',  # an escaped quote does not end the string
        '{"a": "\\\\\\"[[[[[["}',  # an escaped backslash, then an escaped quote
        "[[1, 2], [3]]",
    ],
)
def test_structure_inside_strings_is_not_counted(text: str) -> None:
    scan(text.encode(), TIGHT)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[[[[1]]]]", "nested 4 deep"),
        ("[1,2,3,4,5,6]", "6 items in an array"),
        ('{"a":1,"b":2,"c":3,"d":4}', "4 keys in an object"),
        ("[[],[],[],[],[]]", "arrays and objects, over the cap of 4"),
        ("[" + "1," * 10 + "1]", "values, over the cap of 10"),
        ('["a\\"]', "unterminated string"),
        ("]]]", "unbalanced brackets"),
    ],
)
def test_each_limit_refuses(text: str, why: str) -> None:
    with pytest.raises(JsonRefused, match=why):
        scan(text.encode(), TIGHT)


def test_an_honest_document_loads_unchanged() -> None:
    verdict = _verdict('a "quoted" [name] {with} , commas \\ and \u202e')
    assert load_model(VerdictFile, verdict.model_dump_json().encode()) == verdict


def test_the_walk_reports_the_first_bad_item_only() -> None:
    doc = json.loads(_verdict().model_dump_json())
    doc["testcases"] = [doc["testcases"][0], {"id": 1}, {}]
    with pytest.raises(JsonRefused) as info:
        load_model(VerdictFile, json.dumps(doc).encode())
    assert info.value.message.startswith("testcases.1: ")
    assert "testcases.2" not in info.value.message


def test_a_list_over_the_models_own_cap_is_refused_before_its_items() -> None:
    doc = json.loads(_verdict().model_dump_json())
    doc["reasons"] = ["r"] * 21
    with pytest.raises(JsonRefused, match="reasons: 21 items, over the model's cap of 20"):
        load_model(VerdictFile, json.dumps(doc).encode())


def test_strict_types_still_apply_after_the_walk() -> None:
    doc = json.loads(_verdict().model_dump_json())
    doc["sandbox"]["exit_code"] = "0"
    with pytest.raises(JsonRefused, match=r"sandbox\.exit_code"):
        load_model(VerdictFile, json.dumps(doc).encode())


def test_a_compare_result_is_written_and_read_by_its_wire_names() -> None:
    result = compare_result()  # its code names differ from its wire names ("before" is "base")
    doc = json.loads(result.model_dump_json())
    assert "base" in doc and "before" not in doc
    assert all("base" in t and "before" not in t for t in doc["transitions"])
    assert load_model(CompareResult, result.model_dump_json().encode()) == result


@pytest.mark.parametrize("where", ["top", "transition"])
def test_a_code_name_beside_its_wire_name_is_refused(where: str) -> None:
    """pydantic alone would pass over ``before`` beside ``base``: refused, as before the rename."""
    doc = json.loads(compare_result().model_dump_json())
    if where == "top":
        doc["before"] = doc["base"]
        needle = "before: extra inputs"
    else:
        doc["transitions"][0]["before"] = "passed"
        needle = r"transitions\.0\.before: extra inputs"
    CompareResult.model_validate_json(json.dumps(doc))  # the model alone takes it
    with pytest.raises(JsonRefused, match=needle):
        load_model(CompareResult, json.dumps(doc).encode())
