"""The publish side refuses a VERIFIED comparison without a proof that ran changed code
(``policy/proof.py``): forged results, and the honest one."""

from __future__ import annotations

import pytest

from tests.action.compare_builders import PROOF, compare_result
from tests.action.helpers import HEAD_SHA
from verify_pr.models.compare import ChangedCode, CompareResult
from verify_pr.models.coverage import CoverageState, PatchCoverage
from verify_pr.publish.consistency import compare_problems


def _with(**update: object) -> CompareResult:
    return compare_result().model_copy(update=update)


def _verified_problems(result: CompareResult) -> list[str]:
    return [p for p in compare_problems(result, HEAD_SHA) if "claims VERIFIED" in p]


def test_the_honest_result_is_trusted() -> None:
    assert _verified_problems(compare_result()) == []


@pytest.mark.parametrize(
    ("update", "said"),
    [
        ({"code_paths": ()}, "changes no code file"),
        ({"proofs": ()}, "no proof ran a line"),
        ({"proofs": (PROOF.model_copy(update={"changed_code": None}),)}, "no proof ran a line"),
        (
            {"proofs": (PROOF.model_copy(update={"changed_code": ChangedCode.NOT_RUN}),)},
            "no proof ran a line",
        ),
        (
            {"proofs": (PROOF.model_copy(update={"changed_code": ChangedCode.NO_CODE}),)},
            "no proof ran a line",
        ),
        (
            {"proofs": (PROOF.model_copy(update={"changed_code_lines": ()}),)},
            "not lines of the PR's code paths",
        ),
        (
            {"proofs": (PROOF.model_copy(update={"changed_code_lines": ("head tests/t.py:3",)}),)},
            "not lines of the PR's code paths",
        ),
    ],
)
def test_a_forged_verified_without_changed_code_evidence_is_refused(
    update: dict[str, object], said: str
) -> None:
    problems = _verified_problems(_with(**update))
    assert any(said in p for p in problems), problems


def test_not_measured_is_accepted_its_reason_says_so() -> None:
    unmeasured = PROOF.model_copy(
        update={"changed_code": ChangedCode.NOT_MEASURED, "changed_code_lines": ()}
    )
    no_tracer = PatchCoverage(state=CoverageState.NOT_MEASURED, note="not measured: bun")
    assert _verified_problems(_with(proofs=(unmeasured,), patch_coverage=no_tracer)) == []
