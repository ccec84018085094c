"""The jobs the end-to-end tests run the actions' steps in, as GitHub's runner starts them, and
what the GitHub fake answers the publish job about the pull request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.action.helpers import FORK_REPO_ID, PUBLISH_ACTION, RUN_ID, write_json
from tests.action.runner_sim import Job, run_composite
from tests.github_fake.server import FakeGitHub

PR = 1347


def verify_job(tmp_path: Path, workspace: Path, pull_request: dict[str, Any]) -> Job:
    """The verify job on ``pull_request`` (no token): the PR's checkout in ``workspace``."""
    pr_event = write_json(tmp_path / "pull_request.json", pull_request)
    return Job.create(
        tmp_path / "verify-job",
        {
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(pr_event),
            "GITHUB_REPOSITORY": "Codertocat/Hello-World",
            "GITHUB_RUN_ID": str(RUN_ID),
        },
    )


def serve_fork_pr(
    github_fake: FakeGitHub, artifact: bytes, head_sha: str, changed: list[str], tree: list[str]
) -> None:
    """The verify run's artifact, and PR 1347 from a fork at ``head_sha`` that changes
    ``changed``, its head commit holding ``tree``."""
    github_fake.add_artifact(RUN_ID, "verify-pr-result", artifact, head_sha=head_sha)
    github_fake.pulls.append((PR, "octo-org:fix-bug", head_sha, FORK_REPO_ID))
    github_fake.pull_files[PR] = changed
    github_fake.trees[head_sha] = tree


def publish_job(tmp_path: Path, github_fake: FakeGitHub, event: dict[str, Any]) -> Job:
    """The publish job on ``workflow_run`` (checks: write, no checkout), talking to the fake."""
    event_path = write_json(tmp_path / "workflow_run.json", event)
    return Job.create(
        tmp_path / "publish-job",
        {
            "GITHUB_EVENT_NAME": "workflow_run",
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": event["repository"]["full_name"],
            "GITHUB_API_URL": github_fake.base_url,
        },
    )


def run_publish(job: Job) -> None:
    """The publish action's steps, every one of which must succeed without using an action."""

    def publish_uses(uses: str, _with: dict[str, str]) -> None:
        raise AssertionError(f"the publish action must not use {uses}")

    _, steps = run_composite(PUBLISH_ACTION, job, {}, publish_uses)
    assert all(s.returncode == 0 for s in steps), "\n".join(job.log)
