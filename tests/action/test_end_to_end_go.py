"""End to end for go (issue 38 part 2): the verify action with ``runner: go`` and ``mode:
compare`` -> artifact -> publish -> check run, as tests/action/test_end_to_end.py does for
pytest: the PR's tests run in a real container (verify-pr-go:local), the publish job re-checks
the artifact (its runner, its go-test-json sides and their ids by package) and trusts it."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.action.end_to_end_helpers import publish_job, run_publish, serve_fork_pr, verify_job
from tests.action.helpers import VERIFY_ACTION, WORKFLOW_PATH, workflow_run_event, zip_folder
from tests.action.runner_sim import run_composite
from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, git, init_repo
from tests.github_fake.server import FakeGitHub
from tests.integration.go_helpers import (
    ADD_TEST,
    CALC_BUGGY,
    CALC_FIXED,
    GO_IMAGE,
    GO_MOD,
    MUL_TEST,
)
from verify_pr.publish import main as publish_main

pytestmark = [pytest.mark.docker, pytest.mark.slow]

UPLOAD = "actions/upload-artifact@"


def _checkout(into: Path) -> tuple[str, str]:
    """actions/checkout with fetch-depth: 0: the PR's head checked out, base in the history."""
    init_repo(into)
    base = commit(into, {"go.mod": GO_MOD, "calc.go": CALC_BUGGY, "mul_test.go": MUL_TEST}, "base")
    head = commit(into, {"calc.go": CALC_FIXED, "add_test.go": ADD_TEST}, "fix Add")
    checkout(into, head)
    assert git(into, "cat-file", "-t", base).strip() == "commit"
    subprocess.run(["chmod", "-R", "o+rX", str(into)], check=True)
    return base, head


def test_go_compare_pr_to_check_run(
    tmp_path: Path,
    github_fake: FakeGitHub,
    webhook_payload: Callable[..., dict[str, Any]],
) -> None:
    require_docker(GO_IMAGE)
    workspace = tmp_path / "workspace"
    base_sha, head_sha = _checkout(workspace)
    pull_request = webhook_payload("pull_request", "opened")
    pull_request["pull_request"]["base"]["sha"] = base_sha
    pull_request["pull_request"]["head"]["sha"] = head_sha
    job = verify_job(tmp_path, workspace, pull_request)
    uploaded: dict[str, bytes] = {}
    names: list[str] = []

    def verify_uses(uses: str, with_: dict[str, str]) -> None:
        assert uses.startswith(UPLOAD), uses
        folder = Path(with_["path"])
        names.extend(sorted(p.name for p in folder.iterdir()))
        uploaded[with_["name"]] = zip_folder(folder)

    outputs, steps = run_composite(
        VERIFY_ACTION,
        job,
        {"image": GO_IMAGE, "mode": "compare", "runner": "go", "timeout": "300"},
        verify_uses,
    )
    log = "\n".join(job.log)
    assert all(s.returncode == 0 for s in steps), log
    assert outputs["verdict"] == "VERIFIED", log
    assert outputs["fail-to-pass"] == '["example.com/calc::::TestAdd"]', log
    assert set(names) <= publish_main.COMPARE_ARTIFACT_FILES
    assert set(names) >= publish_main.COMPARE_REQUIRED_FILES

    serve_fork_pr(
        github_fake,
        uploaded["verify-pr-result"],
        head_sha,
        ["calc.go", "add_test.go"],
        ["go.mod", "calc.go", "mul_test.go", "add_test.go"],
    )
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
    event["workflow_run"]["head_sha"] = head_sha
    assert event["workflow_run"]["path"] == WORKFLOW_PATH
    run_publish(publish_job(tmp_path, github_fake, event))
    (check,) = github_fake.check_runs.values()
    assert check["head_sha"] == head_sha
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert check["output"]["title"] == "VERIFIED"
    assert "FAIL_TO_PASS (1)" in check["output"]["summary"]
    assert "NOT TRUSTED" not in check["output"]["summary"]
