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

from tests.action.end_to_end_helpers import publish_job, run_publish, serve_fork_pr, verify_job
from tests.action.helpers import VERIFY_ACTION, workflow_run_event, zip_folder
from tests.action.runner_sim import run_composite
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
    job = verify_job(tmp_path, workspace, webhook_payload("pull_request", "opened"))
    uploaded: dict[str, bytes] = {}

    def verify_uses(uses: str, with_: dict[str, str]) -> None:
        uploaded[with_["name"]] = zip_folder(Path(with_["path"]))

    inputs = {"image": PYTHON_IMAGE, "runner": "pytest", "timeout": "120", "diff-base": base}
    outputs, steps = run_composite(VERIFY_ACTION, job, inputs, verify_uses)
    log = "\n".join(job.log)
    assert all(s.returncode == 0 for s in steps), log
    assert outputs["verdict"] == "PASS", log
    figures = [outputs[f"changed-lines{s}"] for s in ("", "-run", "-run-by-proof")]
    assert figures == ["4", "2", ""], log  # a run has no proof: that output stays empty
    summary = job.summary.read_text(encoding="utf-8")
    assert "changed lines run: 2 of 4 (no proof in mode run)" in summary
    assert "`calc.py:6-7`" in summary

    serve_fork_pr(
        github_fake, uploaded["verify-pr-result"], head, ["calc.py"], ["calc.py", "test_calc.py"]
    )
    github_fake.blob_sizes["calc.py"] = len(FIXED)
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
    event["workflow_run"]["head_sha"] = head
    run_publish(publish_job(tmp_path, github_fake, event))
    (run_id,) = github_fake.check_runs
    check = github_fake.check_runs[run_id]
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert "changed lines run: 2 of 4 (no proof in mode run)" in check["output"]["summary"]
    notes = [
        (n["annotation_level"], n["path"], n["start_line"], n["end_line"])
        for n in github_fake.annotations[run_id]
    ]
    assert notes == [("notice", "calc.py", 6, 7)]
