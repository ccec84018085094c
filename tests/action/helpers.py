"""Shared pieces of the action tests: paths, shipped YAML files, artifact and event builders."""

from __future__ import annotations

import io
import json
import subprocess
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile

ROOT = Path(__file__).resolve().parents[2]
VERIFY_ACTION = ROOT / "action.yml"
PUBLISH_ACTION = ROOT / "publish" / "action.yml"
ACTION_FILES = (VERIFY_ACTION, PUBLISH_ACTION)
WORKFLOWS = tuple(sorted((ROOT / ".github" / "workflows").glob("*.yml")))
EXAMPLES = tuple(sorted((ROOT / "docs" / "examples").glob("*.yml")))
SHIPPED = ACTION_FILES + WORKFLOWS + EXAMPLES
HEAD_SHA = "5779607b49aab1200488439f02372c57b4f75444"
RUN_ID = 1589141559
FORK_REPO_ID = 396980812
WORKFLOW_PATH = ".github/workflows/verify-pr.yml"


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def zip_files(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def zip_folder(folder: Path) -> bytes:
    """What actions/upload-artifact makes of a folder: its files at the root of a zip."""
    return zip_files({p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()})


def workflow_run_event(
    example: dict[str, Any], *, fork: bool = True, event: str = "pull_request"
) -> dict[str, Any]:
    """A real @octokit/webhooks-examples workflow_run payload, adapted to a PR's verify run."""
    run = example["workflow_run"]
    run.update(
        id=RUN_ID,
        run_attempt=1,
        head_sha=HEAD_SHA,
        event=event,
        path=WORKFLOW_PATH,
        head_branch="fix-bug",
        pull_requests=[],
        conclusion="success",
    )
    run["head_repository"]["id"] = FORK_REPO_ID if fork else example["repository"]["id"]
    return example


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


NAME = "verify-pr-result"
PR = 1347


def verdict_file(verdict: Verdict = Verdict.PASS, cases: tuple[TestCase, ...] = ()) -> VerdictFile:
    """A self-consistent verdict, as `verify-pr run` writes one (the publish side re-derives it)."""
    if not cases:
        cases = (
            TestCase.build(
                name="test_ok",
                classname="test_ok",
                file="test_ok.py",
                line=3,
                status=TestStatus.PASSED,
            ),
        )
    failing = any(c.status in (TestStatus.FAILED, TestStatus.ERROR) for c in cases)
    blocked = verdict is Verdict.BLOCKED
    sandbox = SandboxResult(
        status=RunStatus.BLOCKED if blocked else RunStatus.COMPLETED,
        exit_code=None if blocked else int(failing),
        output_truncated=False,
        detail="no image" if blocked else "",
        image="verify-pr-python:local",
        timeout_s=60,
        report=ReportStatus.NOT_REQUESTED if blocked else ReportStatus.RETURNED,
    )
    return VerdictFile(
        verdict=verdict,
        reasons=(),
        runner="pytest",
        runner_version="8",
        command="pytest",
        totals=None if blocked else Totals.count(cases),
        testcases=() if blocked else cases,
        sandbox=sandbox,
    )


def artifact(verdict: VerdictFile | None = None, **extra: bytes) -> bytes:
    v = verdict or verdict_file()
    files = {
        "result.json": v.sandbox.model_dump_json().encode(),
        "verdict.json": v.model_dump_json().encode(),
        "output.txt": b"1 passed\n",
        **extra,
    }
    return zip_files(files)


def _untrusted(check: dict[str, Any]) -> None:
    assert check["conclusion"] == "action_required"
    assert check["conclusion"] not in ("success", "failure")
    assert check["output"]["title"].startswith("NOT TRUSTED")


HOSTILE_NAME = "@octocat [click](https://evil.example) <img src=x> ::error::pwned `x` | # 1"


def step_env(tmp_path: Path) -> dict[str, str]:
    """The environment a verify step sees in a job with no credentials, in run mode."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "temp").mkdir()
    for name in ("out", "summary"):
        (tmp_path / name).touch()
    return {
        "INPUT_IMAGE": "verify-pr-python:local",
        "GITHUB_WORKSPACE": str(tmp_path / "ws"),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "PATH": "/usr/bin:/bin",
    }


def verifier_seam(
    monkeypatch: pytest.MonkeyPatch, fake: Callable[..., subprocess.CompletedProcess[bytes]]
) -> None:
    """Stand ``fake`` (called as ``subprocess.run`` would be) in for the verifier child the
    verify step launches (``forward.run_child``)."""
    from verify_pr.action import forward

    def run_child(argv: list[str], env: Mapping[str, str]) -> tuple[int, bytes]:
        done = fake(argv, capture_output=True, check=False, env=dict(env))
        return done.returncode, done.stdout + done.stderr

    monkeypatch.setattr(forward, "run_child", run_child)
