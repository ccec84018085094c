"""The shadow-module test under a real runner: the PR's checkout shadows every module name.

tests/action/test_host_isolation.py proves it under the simulated runner for every step of
both actions; this runs the docs' verify workflow under act with the shadow tree committed in
the PR (so actions/checkout puts it in the workspace, where act runs steps by default): no
marker. Its positive control runs the same workflow against a copy of the action with the
isolation taken out (no ``-I``, no ``working-directory``): markers appear.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.act.harness import run_act
from tests.act.helpers import docs_workflow, pull_request_event
from tests.action.isolation_helpers import strip_isolation
from tests.action.shadow_tree import markers, plant_shadows
from tests.conftest import require_docker
from tests.git_helpers import commit, git, init_repo

PYTHON_IMAGE = "verify-pr-python:local"
TESTS = "def test_ok():\n    assert True\n"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _shadowed_pr(root: Path, marker: Path) -> tuple[Path, str, str]:
    repo = init_repo(root / "origin")
    files = {
        ".github/workflows/verify-pr.yml": docs_workflow("verify-pr-registry-image.yml"),
        "test_ok.py": TESTS,
    }
    base = commit(repo, files, "base")
    git(repo, "checkout", "--quiet", "-b", "fix")
    names = plant_shadows(repo, marker)
    assert len(names) > 300
    head = commit(repo, {}, "the PR: a shadow for every module name")
    return repo, base, head


@pytest.mark.parametrize("isolated", [True, False], ids=["isolated", "positive-control"])
def test_verify_workflow_under_act_imports_nothing_from_the_checkout(
    tmp_path: Path, webhook_payload: Callable[..., dict[str, Any]], isolated: bool
) -> None:
    require_docker(PYTHON_IMAGE)
    marker = tmp_path / "markers.txt"
    repo, base, head = _shadowed_pr(tmp_path, marker)
    event = pull_request_event(tmp_path, webhook_payload, base, head)
    self_dir = Path(__file__).resolve().parents[2]
    if not isolated:
        self_dir = strip_isolation(tmp_path / "bare-action")
    result = run_act(
        "pull_request",
        repo / ".github" / "workflows" / "verify-pr.yml",
        event,
        source=repo,
        work=tmp_path / "verify",
        self_dir=self_dir,
    )
    if isolated:
        assert "verify-pr: installed into" in result.log, result.log
        assert "verify-pr: verdict" in result.log, result.log
        assert markers(marker) == [], result.log
    else:
        assert markers(marker), "the unisolated action imported no shadow: the probe is broken"
