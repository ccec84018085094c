"""The reusable workflows take every input of the action they call, with the same default, and
hand each one to it unchanged: a caller of verify.yml can set what a caller of action.yml can."""

from __future__ import annotations

from typing import Any

import pytest

from tests.action.helpers import PUBLISH_ACTION, ROOT, VERIFY_ACTION, load

WORKFLOWS = ROOT / ".github" / "workflows"
# the reusable publish workflow posts with its own job's token, which its caller grants
# through `permissions:`; a token input would invite passing a stronger one
NOT_FORWARDED = {"publish.yml": {"github-token"}}
# the verify workflow checks the PR out into pr/, so its path is the action's under pr/
FORWARDED_AS = {("verify.yml", "path"): "pr/${{ inputs.path }}"}
ACTION_OF = {"verify.yml": VERIFY_ACTION, "publish.yml": PUBLISH_ACTION}


def the_step(workflow: dict[str, Any]) -> dict[str, Any]:
    """The step that runs the action: the local checkout of verify-pr or its publish action."""
    (job,) = workflow["jobs"].values()
    (step,) = [
        s for s in job["steps"] if s.get("uses", "").startswith(("./.verify-pr", "verify-pr/"))
    ]
    return step


@pytest.mark.parametrize("name", sorted(ACTION_OF))
def test_every_action_input_is_an_input_of_the_reusable_workflow(name: str) -> None:
    action = load(ACTION_OF[name])["inputs"]
    workflow = load(WORKFLOWS / name)
    inputs = workflow[True]["workflow_call"]["inputs"]  # YAML 1.1 reads `on:` as True
    assert set(inputs) == set(action) - NOT_FORWARDED.get(name, set()), set(inputs) ^ set(action)
    for key, spec in inputs.items():
        assert spec["type"] == "string", key  # the action's inputs are strings
        assert bool(spec.get("required")) == bool(action[key].get("required")), key
        assert str(spec.get("default", "")) == str(action[key].get("default", "")), key
    step = the_step(workflow)
    expected = {key: FORWARDED_AS.get((name, key), f"${{{{ inputs.{key} }}}}") for key in inputs}
    assert step.get("with", {}) == expected


def test_the_history_is_fetched_for_every_input_that_reads_base() -> None:
    """compare, build-dockerfile and diff-base read a commit other than the checkout's."""
    (job,) = load(WORKFLOWS / "verify.yml")["jobs"].values()
    depth = job["steps"][0]["with"]["fetch-depth"]
    for needs_history in (
        "inputs.mode == 'compare'",
        "inputs.build-dockerfile != ''",
        "inputs.diff-base != ''",
    ):
        assert needs_history in depth, depth


def test_a_missing_input_is_noticed() -> None:
    """Positive control: the comparison sees an input the workflow drops."""
    action = set(load(VERIFY_ACTION)["inputs"])
    inputs = set(load(WORKFLOWS / "verify.yml")[True]["workflow_call"]["inputs"]) - {"fail-on"}
    assert action - inputs == {"fail-on"}
