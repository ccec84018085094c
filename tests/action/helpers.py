"""Shared pieces of the action tests: paths, shipped YAML files, artifact and event builders."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import yaml

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
