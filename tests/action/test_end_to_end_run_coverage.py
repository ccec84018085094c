"""End to end, mode run with the input diff-base: the action's run: steps pass it to
`verify-pr run --diff-base`, the run measures which changed lines ran (a real container), the
outputs and the job summary carry the figures, and the publish job turns the artifact into a
check run with a notice on the lines nothing ran. The twin without diff-base is
test_end_to_end.py::test_pr_files_to_check_run (empty outputs, no figures)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.action.helpers import (
    FORK_REPO_ID,
    PUBLISH_ACTION,
    RUN_ID,
    VERIFY_ACTION,
    workflow_run_event,
    write_json,
    zip_folder,
)
from tests.action.runner_sim import Job, run_composite
from tests.conftest import require_docker
from tests.git_helpers import commit, init_repo
from tests.github_fake.server import FakeGitHub

PYTHON_IMAGE = "verify-pr-python:local"
BUGGY = "def add(a, b):\n    return a - b\n"
# 2 the fix; 5 the helper's def (any import runs it), 6-7 its body, which no test calls
FIXED = "def add(a, b):\n    return a + b\n\n\ndef helper(x):\n    y = x * 2\n    return y\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_run_with_diff_base_to_check_run(
    tmp_path: Path,
    github_fake: FakeGitHub,
    webhook_payload: Callable[..., dict[str, Any]],
) -> None:
    require_docker(PYTHON_IMAGE)
    workspace = init_repo(tmp_path / "workspace")
    base = commit(workspace, {"calc.py": BUGGY, "test_calc.py": TESTS}, "base")
    head = commit(workspace, {"calc.py": FIXED}, "fix add, add a helper")
    subprocess.run(["chmod", "-R", "o+rX", str(workspace)], check=True)
    pr_event = write_json(tmp_path / "pull_request.json", webhook_payload("pull_request", "opened"))
    verify_job = Job.create(
        tmp_path / "verify-job",
        {
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(pr_event),
            "GITHUB_REPOSITORY": "Codertocat/Hello-World",
            "GITHUB_RUN_ID": str(RUN_ID),
        },
    )
    uploaded: dict[str, bytes] = {}

    def verify_uses(uses: str, with_: dict[str, str]) -> None:
        uploaded[with_["name"]] = zip_folder(Path(with_["path"]))

    inputs = {"image": PYTHON_IMAGE, "runner": "pytest", "timeout": "120", "diff-base": base}
    outputs, steps = run_composite(VERIFY_ACTION, verify_job, inputs, verify_uses)
    log = "\n".join(verify_job.log)
    assert all(s.returncode == 0 for s in steps), log
    assert outputs["verdict"] == "PASS", log
    figures = [outputs[f"changed-lines{s}"] for s in ("", "-run", "-run-by-proof")]
    assert figures == ["4", "2", ""], log  # a run has no proof: that output stays empty
    summary = verify_job.summary.read_text(encoding="utf-8")
    assert "changed lines run: 2 of 4 (no proof in mode run)" in summary
    assert "`calc.py:6-7`" in summary

    github_fake.add_artifact(
        RUN_ID, "verify-pr-result", uploaded["verify-pr-result"], head_sha=head
    )
    github_fake.pulls.append((1347, "octo-org:fix-bug", head, FORK_REPO_ID))
    github_fake.pull_files[1347] = ["calc.py"]
    github_fake.trees[head] = ["calc.py", "test_calc.py"]
    github_fake.blob_sizes["calc.py"] = len(FIXED)
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
    event["workflow_run"]["head_sha"] = head
    event_path = write_json(tmp_path / "workflow_run.json", event)
    publish_job = Job.create(
        tmp_path / "publish-job",
        {
            "GITHUB_EVENT_NAME": "workflow_run",
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": event["repository"]["full_name"],
            "GITHUB_API_URL": github_fake.base_url,
        },
    )

    def publish_uses(uses: str, _with: dict[str, str]) -> None:
        raise AssertionError(f"the publish action must not use {uses}")

    _, publish_steps = run_composite(PUBLISH_ACTION, publish_job, {}, publish_uses)
    assert all(s.returncode == 0 for s in publish_steps), "\n".join(publish_job.log)
    (run_id,) = github_fake.check_runs
    check = github_fake.check_runs[run_id]
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert "changed lines run: 2 of 4 (no proof in mode run)" in check["output"]["summary"]
    notes = [
        (n["annotation_level"], n["path"], n["start_line"], n["end_line"])
        for n in github_fake.annotations[run_id]
    ]
    assert notes == [("notice", "calc.py", 6, 7)]
