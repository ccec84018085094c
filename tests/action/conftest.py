"""The action tests' shared fixture: ``publish`` runs the publish step against the loopback GitHub
fake for one artifact and returns the check run it posted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.action.helpers import (
    FORK_REPO_ID,
    HEAD_SHA,
    NAME,
    PR,
    RUN_ID,
    workflow_run_event,
    write_json,
)
from tests.github_fake.server import TOKEN, FakeGitHub
from verify_pr.exit_codes import PublishExit
from verify_pr.publish import main as publish_main


@pytest.fixture
def publish(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> Callable[..., dict[str, Any]]:
    def run(
        data: bytes | None,
        *,
        pr_files: tuple[str, ...] = ("test_ok.py",),
        event_changes: dict[str, Any] | None = None,
        fork: bool = True,
        extra_env: dict[str, str] | None = None,
        artifact_head: str = HEAD_SHA,
        pulls: list[tuple[Any, ...]] | None = None,
    ) -> dict[str, Any]:
        if data is not None:
            github_fake.add_artifact(RUN_ID, NAME, data, head_sha=artifact_head)
        head_repo = FORK_REPO_ID
        event = workflow_run_event(webhook_payload("workflow_run", "completed"), fork=fork)
        if not fork:
            head_repo = event["repository"]["id"]
        event["workflow_run"].update(event_changes or {})
        github_fake.pulls[:] = (
            [(PR, "octo-org:fix-bug", HEAD_SHA, head_repo)] if pulls is None else pulls
        )
        github_fake.pull_files[PR] = list(pr_files)
        github_fake.trees[HEAD_SHA] = ["test_ok.py", "tests/test_x.py"]
        env = {
            "INPUT_GITHUB-TOKEN": TOKEN,
            "GITHUB_REPOSITORY": event["repository"]["full_name"],
            "GITHUB_API_URL": github_fake.base_url,
            "GITHUB_EVENT_NAME": "workflow_run",
            "GITHUB_EVENT_PATH": str(write_json(tmp_path / "event.json", event)),
            **(extra_env or {}),
        }
        assert publish_main.main(env) == PublishExit.POSTED
        (check,) = github_fake.check_runs.values()
        return check

    return run
