"""Each proof's changed-code standing in the summary: every state said, lines escaped."""

from __future__ import annotations

import pytest

from tests.action.compare_builders import PROOF, compare_result
from verify_pr.models.compare import ChangedCode
from verify_pr.render.compared import proof_lines


@pytest.mark.parametrize("state", list(ChangedCode))
def test_every_state_is_said(state: ChangedCode) -> None:
    proof = PROOF.model_copy(update={"changed_code": state})
    lines = proof_lines(compare_result().model_copy(update={"proofs": (proof,)}))
    assert " — " in lines[1]
    if state is ChangedCode.RAN:
        assert "ran changed code: `head x.py:1`" in lines[1]
    elif state is not ChangedCode.NOT_MEASURED:
        assert "(not a proof)" in lines[1]


def test_an_older_file_without_the_field_shows_nothing_new() -> None:
    proof = PROOF.model_copy(update={"changed_code": None, "changed_code_lines": ()})
    lines = proof_lines(compare_result().model_copy(update={"proofs": (proof,)}))
    assert " — " not in lines[1]
