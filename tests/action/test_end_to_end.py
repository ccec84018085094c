"""End to end: a PR's files -> the verify action's run: steps -> artifact -> publish -> check run.

The ``run:`` steps of both action.yml files are read from the YAML and run with bash, with the
``GITHUB_*`` files and variables set as the runner sets them; the PR's tests run in a real
container (verify-pr-python:local); the ``uses:`` steps (checkout, upload-artifact) are
simulated here; the publish steps talk to the loopback GitHub fake, which checks every request
against GitHub's OpenAPI description. The test ends at the check run the fake received.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.action.end_to_end_helpers import publish_job, run_publish, serve_fork_pr, verify_job
from tests.action.helpers import (
    HEAD_SHA,
    ROOT,
    RUN_ID,
    VERIFY_ACTION,
    WORKFLOW_PATH,
    workflow_run_event,
    zip_folder,
)
from tests.action.runner_sim import run_composite
from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, git, init_repo
from tests.github_fake.server import FakeGitHub
from verify_pr.action import runner_cpus
from verify_pr.publish import main as publish_main

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
    job = verify_job(tmp_path, workspace, webhook_payload("pull_request", "opened"))
    uploaded: dict[str, bytes] = {}

    def verify_uses(uses: str, with_: dict[str, str]) -> None:
        assert uses.startswith(UPLOAD), uses
        assert with_["if-no-files-found"] == "error"
        uploaded[with_["name"]] = zip_folder(Path(with_["path"]))

    outputs, steps = run_composite(
        VERIFY_ACTION,
        job,
        {"image": PYTHON_IMAGE, "runner": "pytest", "timeout": "120"},
        verify_uses,
    )
    log = "\n".join(job.log)
    result_dir = outputs.pop("result-dir")
    assert outputs == {
        "verdict": "PASS",
        "fails-job": "false",
        "status": "COMPLETED",
        "total": "2",
        "passed": "2",
        "failed": "0",
        "errors": "0",
        "skipped": "0",
        "expected-failures": "0",
        "fail-to-pass": "[]",
        "changed-lines": "",
        "changed-lines-run": "",
        "changed-lines-run-by-proof": "",
    }, log
    assert (Path(result_dir) / "verdict.json").is_file()
    # the input cpus defaults to the runner's cores: the sandbox really got them
    sandbox = json.loads((Path(result_dir) / "result.json").read_text())
    assert sandbox["cpus"] == float(runner_cpus()) and sandbox["memory_bytes"] == 512 << 20
    assert [s.name for s in steps if not s.ran] == [
        "Pull the digest-pinned image",
        "Build the test image from the base commit",
    ]
    assert all(s.returncode == 0 for s in steps), log
    verify_step = next(s for s in steps if s.name.startswith("Verify"))
    # the check's output reaches the log only between stop-commands markers
    start = verify_step.stdout.index("::stop-commands::")
    token = verify_step.stdout[start:].split("\n", 1)[0].removeprefix("::stop-commands::")
    assert len(token) == 32 and f"\n::{token}::\n" in verify_step.stdout
    summary = job.summary.read_text(encoding="utf-8")
    assert "verify-pr: PASS" in summary and "| total |" in summary
    assert list(uploaded) == ["verify-pr-result"]

    # -- the publish job (workflow_run, checks: write, no checkout) ----------------------
    serve_fork_pr(
        github_fake, uploaded["verify-pr-result"], HEAD_SHA, ["test_ok.py"], ["test_ok.py"]
    )
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
    publish = publish_job(tmp_path, github_fake, event)
    for attempt in (1, 2):  # a re-run of the publish job updates the same check run
        run_publish(publish)
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


BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
CALC_TESTS = (
    "from calc import add\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_sane():\n    assert 1 + 1 == 2\n"
)


def _compare_checkout(into: Path) -> tuple[str, str]:
    """actions/checkout with fetch-depth: 0: the PR's head checked out, base in the history."""
    init_repo(into)
    base = commit(into, {"calc.py": BUGGY, "test_calc.py": CALC_TESTS}, "base: add is wrong")
    head = commit(into, {"calc.py": FIXED}, "fix add")
    checkout(into, head)
    assert git(into, "cat-file", "-t", base).strip() == "commit"
    subprocess.run(["chmod", "-R", "o+rX", str(into)], check=True)
    return base, head


def test_compare_pr_to_check_run(
    tmp_path: Path,
    github_fake: FakeGitHub,
    webhook_payload: Callable[..., dict[str, Any]],
) -> None:
    """mode: compare, base fails test_add and head fixes it -> VERIFIED -> success."""
    require_docker(PYTHON_IMAGE)
    # -- the verify job (pull_request, no token, fetch-depth: 0) -------------------------
    workspace = tmp_path / "workspace"
    base_sha, head_sha = _compare_checkout(workspace)
    pull_request = webhook_payload("pull_request", "opened")
    pull_request["pull_request"]["base"]["sha"] = base_sha
    pull_request["pull_request"]["head"]["sha"] = head_sha
    job = verify_job(tmp_path, workspace, pull_request)
    uploaded: dict[str, bytes] = {}
    names: list[str] = []

    def verify_uses(uses: str, with_: dict[str, str]) -> None:
        assert uses.startswith(UPLOAD), uses
        folder = Path(with_["path"])
        assert all(p.is_file() and not p.is_symlink() for p in folder.iterdir())
        names.extend(sorted(p.name for p in folder.iterdir()))
        uploaded[with_["name"]] = zip_folder(folder)

    outputs, steps = run_composite(
        VERIFY_ACTION,
        job,
        {
            "image": PYTHON_IMAGE,
            "mode": "compare",
            "runner": "pytest",
            "timeout": "120",
            "strict-harness": "true",
        },
        verify_uses,
    )
    log = "\n".join(job.log)
    result_dir = outputs.pop("result-dir")
    assert outputs == {
        "verdict": "VERIFIED",
        "fails-job": "false",
        "status": "COMPLETED",
        "total": "2",
        "passed": "2",
        "failed": "0",
        "errors": "0",
        "skipped": "0",
        "expected-failures": "0",
        "fail-to-pass": '["test_calc.py::test_calc::test_add"]',
        # calc.py's one changed line (the fix), run by the suite and by the proof
        "changed-lines": "1",
        "changed-lines-run": "1",
        "changed-lines-run-by-proof": "1",
    }, log
    assert (Path(result_dir) / "verify-pr-result.json").is_file()
    assert all(s.returncode == 0 for s in steps), log
    assert set(names) <= publish_main.COMPARE_ARTIFACT_FILES
    assert set(names) >= publish_main.COMPARE_REQUIRED_FILES
    verify_step = next(s for s in steps if s.name.startswith("Verify"))
    assert verify_step.stdout.count("::stop-commands::") >= 3  # messages, base and head output
    summary = job.summary.read_text(encoding="utf-8")
    assert "verify-pr compare: VERIFIED" in summary
    assert "FAIL_TO_PASS (1)" in summary and "test\\_add" in summary

    # -- the publish job (workflow_run, checks: write, no checkout) ----------------------
    serve_fork_pr(
        github_fake,
        uploaded["verify-pr-result"],
        head_sha,
        ["calc.py"],
        ["calc.py", "test_calc.py"],
    )
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
    event["workflow_run"]["head_sha"] = head_sha
    assert event["workflow_run"]["path"] == WORKFLOW_PATH
    run_publish(publish_job(tmp_path, github_fake, event))
    (check,) = github_fake.check_runs.values()
    assert check["head_sha"] == head_sha
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert check["output"]["title"] == "VERIFIED"
    assert "VERIFIED" in check["output"]["summary"]
    assert "FAIL_TO_PASS (1)" in check["output"]["summary"]
    assert "NOT TRUSTED" not in check["output"]["summary"]


def test_compare_with_the_projects_own_command_through_the_step(
    tmp_path: Path, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    """inputs command + report-format: compare runs the project's command on every side."""
    require_docker(PYTHON_IMAGE)
    workspace = tmp_path / "workspace"
    base_sha, head_sha = _compare_checkout(workspace)
    pull_request = webhook_payload("pull_request", "opened")
    pull_request["pull_request"]["base"]["sha"] = base_sha
    pull_request["pull_request"]["head"]["sha"] = head_sha
    job = verify_job(tmp_path, workspace, pull_request)
    outputs, _ = run_composite(
        VERIFY_ACTION,
        job,
        {
            "image": PYTHON_IMAGE,
            "mode": "compare",
            "command": "python3 -P -m pytest -q -p no:cacheprovider --junitxml={report}",
            "report-format": "junit",
            "timeout": "120",
        },
        lambda *_: None,
    )
    log = "\n".join(job.log)
    assert outputs["verdict"] == "VERIFIED", log
    (proof,) = json.loads(outputs["fail-to-pass"])
    assert proof.endswith("test_calc::test_add"), proof  # the command's junit has no file
    result = json.loads((Path(outputs["result-dir"]) / "verify-pr-result.json").read_text())
    assert result["verdict"] == "VERIFIED"
