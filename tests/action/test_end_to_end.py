"""End to end: a PR's files -> the verify action's run: steps -> artifact -> publish -> check run.

The ``run:`` steps of both action.yml files are read from the YAML and run with bash, with the
``GITHUB_*`` files and variables set as the runner sets them; the PR's tests run in a real
container (verify-pr-python:local); the ``uses:`` steps (checkout, upload-artifact) are
simulated here; the publish steps talk to the loopback GitHub fake, which checks every request
against GitHub's OpenAPI description. The test ends at the check run the fake received.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.action.helpers import (
    FORK_REPO_ID,
    HEAD_SHA,
    PUBLISH_ACTION,
    ROOT,
    RUN_ID,
    VERIFY_ACTION,
    workflow_run_event,
    write_json,
    zip_folder,
)
from tests.action.runner_sim import Job, run_composite
from tests.conftest import require_docker
from tests.github_fake.server import FakeGitHub

PYTHON_IMAGE = "verify-pr-python:local"
FIXTURE = ROOT / "tests" / "fixtures" / "projects" / "pytest" / "pass"
UPLOAD = "actions/upload-artifact@"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _checkout(into: Path) -> Path:
    """What actions/checkout with persist-credentials: false leaves: the PR's files."""
    shutil.copytree(FIXTURE, into, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run(["chmod", "-R", "o+rX", str(into)], check=True)
    return into


def test_pr_files_to_check_run(
    tmp_path: Path,
    github_fake: FakeGitHub,
    webhook_payload: Callable[..., dict[str, Any]],
) -> None:
    require_docker(PYTHON_IMAGE)
    # -- the verify job (pull_request, no token) -----------------------------------------
    workspace = _checkout(tmp_path / "workspace")
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
        assert uses.startswith(UPLOAD), uses
        assert with_["if-no-files-found"] == "error"
        uploaded[with_["name"]] = zip_folder(Path(with_["path"]))

    outputs, steps = run_composite(
        VERIFY_ACTION,
        verify_job,
        {"image": PYTHON_IMAGE, "runner": "pytest", "timeout": "120"},
        verify_uses,
    )
    log = "\n".join(verify_job.log)
    assert outputs == {"verdict": "PASS", "status": "COMPLETED"}, log
    assert [s.name for s in steps if not s.ran] == ["Pull the digest-pinned image"]
    assert all(s.returncode == 0 for s in steps), log
    verify_step = next(s for s in steps if s.name.startswith("Verify"))
    # the check's output reaches the log only between stop-commands markers
    start = verify_step.stdout.index("::stop-commands::")
    token = verify_step.stdout[start:].split("\n", 1)[0].removeprefix("::stop-commands::")
    assert len(token) == 32 and f"\n::{token}::\n" in verify_step.stdout
    summary = verify_job.summary.read_text(encoding="utf-8")
    assert "verify-pr: PASS" in summary and "| total |" in summary
    assert list(uploaded) == ["verify-pr-result"]

    # -- the publish job (workflow_run, checks: write, no checkout) ----------------------
    github_fake.add_artifact(
        RUN_ID, "verify-pr-result", uploaded["verify-pr-result"], head_sha=HEAD_SHA
    )
    github_fake.pulls.append((1347, "octo-org:fix-bug", HEAD_SHA, FORK_REPO_ID))
    github_fake.pull_files[1347] = ["test_ok.py"]
    github_fake.trees[HEAD_SHA] = ["test_ok.py"]
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
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

    for attempt in (1, 2):  # a re-run of the publish job updates the same check run
        _, publish_steps = run_composite(PUBLISH_ACTION, publish_job, {}, publish_uses)
        assert all(s.returncode == 0 for s in publish_steps), "\n".join(publish_job.log)
        assert len(github_fake.check_runs) == 1, attempt
    (check,) = github_fake.check_runs.values()
    assert check["head_sha"] == HEAD_SHA
    assert check["name"] == "verify-pr"
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert check["external_id"] == f"verify-run:{RUN_ID}:1"
    assert check["output"]["title"] == "PASS"
    assert "NOT TRUSTED" not in check["output"]["summary"]
    assert len(github_fake.calls("checks/create")) == 1
    assert len(github_fake.calls("checks/update")) == 1
    assert all("authorization" not in r.headers for r in github_fake.calls("blob"))
