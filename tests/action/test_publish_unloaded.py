"""The publish job over a VERIFIED comparison whose head could not load a test file (forgiven by
``verify.unloaded`` because it never loaded before the PR either), through the real publish
entry point: accepted only when the artifact carries that evidence and GitHub's own listing of
the PR's files agrees the file is untouched; NOT TRUSTED otherwise. The honest artifact is the
positive control."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.action.compare_builders import case, compare_artifact, compare_result
from tests.action.helpers import _untrusted, verdict_file
from verify_pr.models.compare import CompareResult
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.verdict import Verdict

Publish = Callable[..., dict[str, Any]]
STALE = "tests/test_stale.py"
# pytest's stand-in for a test file that could not load (a collection error: no classname)
UNLOADED = TestCase.build(
    name="tests.test_stale",
    classname=None,
    file=STALE,
    line=None,
    status=TestStatus.ERROR,
    message="collection failure",
)


def _result(**update: Any) -> CompareResult:
    base = verdict_file(Verdict.FAIL, (case(TestStatus.FAILED), UNLOADED))
    head = verdict_file(Verdict.FAIL, (case(TestStatus.PASSED), UNLOADED))
    own = verdict_file(Verdict.FAIL, (UNLOADED,))
    result = compare_result(base, head).model_copy(
        update={"base_own": own, "test_paths": ("tests/test_x.py",), "code_paths": ("x.py",)}
    )
    return result.model_copy(update=update)


def test_positive_control_a_file_that_never_loaded_is_verified(publish: Publish) -> None:
    check = publish(compare_artifact(_result()), pr_files=("tests/test_x.py", "x.py"))
    assert check["conclusion"] == "success", check["output"]["summary"]


def test_githubs_listing_of_the_pr_naming_the_file_is_not_trusted(publish: Publish) -> None:
    """The artifact says the PR leaves the file alone; GitHub says the PR changes it."""
    check = publish(compare_artifact(_result()), pr_files=("tests/test_x.py", STALE))
    _untrusted(check)
    assert "GitHub lists the PR as changing them" in check["output"]["summary"]
    assert STALE in check["output"]["summary"].replace("\\", "")


@pytest.mark.parametrize(
    ("update", "why"),
    [
        pytest.param({"base_own": None}, "base's own run is missing", id="no-base-own"),
        pytest.param(
            {
                "base_own": verdict_file(
                    Verdict.PASS, (case(TestStatus.PASSED, "test_hidden", STALE),)
                )
            },
            "not shown to fail alike",
            id="loads-on-base",
        ),
        pytest.param({"test_paths": (STALE,)}, "not shown to fail alike", id="changed-by-the-pr"),
    ],
)
def test_a_verified_without_the_evidence_is_not_trusted(
    publish: Publish, update: dict[str, Any], why: str
) -> None:
    check = publish(compare_artifact(_result(**update)), pr_files=("tests/test_x.py",))
    _untrusted(check)
    summary = check["output"]["summary"].replace("\\", "")
    assert "the artifact contradicts itself" in summary, summary
    assert why in summary, summary
