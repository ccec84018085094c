"""Helpers several integration test files share: running `verify-pr run` and `compare` as the
user does, the corpus's pinned downloads, and a probe run with every control absent."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.images.buildlib.dockerio import locked_run_argv
from tests.sandbox_helpers import make_repo
from verify_pr.models.compare import CompareResult
from verify_pr.verify import cli

Counts = tuple[int, int, int, int, int] | None  # total, passed, failed, error, skipped


PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "projects"
IMAGES = {
    "pytest": "verify-pr-python:local",
    "jest": "verify-pr-node:local",
    "vitest": "verify-pr-node:local",
    "bun": "verify-pr-bun:local",
}


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    verdict: dict[str, Any]
    out: Path


def verify_pr(repo: Path, image: str, out: Path, *extra: str, timeout: float = 300) -> Run:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "verify_pr.verify.cli",
            "run",
            "--repo",
            str(repo),
            "--image",
            image,
            "--out",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    path = out / "verdict.json"
    verdict = json.loads(path.read_text()) if path.exists() else {}
    return Run(proc.returncode, proc.stdout, proc.stderr, verdict, out)


def counts(verdict: dict[str, Any]) -> Counts:
    t = verdict.get("totals")
    return None if t is None else (t["total"], t["passed"], t["failed"], t["error"], t["skipped"])


def compare(
    tmp_path: Path, repo: Path, base: str, head: str, image: str, *extra: str
) -> tuple[int, CompareResult, str]:
    out = tmp_path / "out"
    code = cli.main(
        [
            "compare",
            "--git",
            str(repo),
            "--image",
            image,
            "--out",
            str(out),
            "--timeout",
            "60",
            "--base",
            base,
            "--head",
            head,
            *extra,
        ]
    )
    result = CompareResult.model_validate_json((out / "verify-pr-result.json").read_text())
    return code, result, (out / "compare_summary.md").read_text()


ROOT = Path(__file__).resolve().parents[1]
MANIFEST = json.loads((ROOT / "corpus" / "manifest.json").read_text())
CACHE = ROOT / ".cache" / "corpus"
# The runner's own JSON report, read in the same image: the command without verify-pr's flags.
_NODE_DIRECT = {
    "jest": "jest --ci --json --outputFile=/tmp/direct.json",
    "vitest": "vitest run --configLoader runner --reporter=json --outputFile.json=/tmp/direct.json",
}


def locked_run(
    tree: Path, image: str, script: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``script`` over a copy of ``tree`` in /work, run by the runner directly in ``image`` with
    verify-pr's lockdown: no network, no capabilities, read-only root, a user with no home,
    tmpfs /work and /tmp."""
    argv = locked_run_argv(
        image,
        "sh",
        "-c",
        "cp -R /repo/. /work/ && cd /work && " + script,
        tmpfs=("/work:exec,size=256m,uid=65534,gid=65534", "/tmp:size=64m"),
        options=("-e", "HOME=/work", "-v", f"{tree}:/repo:ro"),
    )
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)


def fetch(entry: dict[str, Any]) -> Path:
    """The sdist, downloaded once into the cache with pip, checked against its pinned sha256."""
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / entry["file"]
    if not archive.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(CACHE),
                f"{entry['name']}=={entry['version']}",
            ],
            capture_output=True,
            timeout=300,
            check=True,
        )
    return pinned(archive, entry["sha256"])


def fetch_npm(entry: dict[str, Any]) -> Path:
    """The registry tarball, downloaded once into the cache with npm pack (no install, no
    scripts), checked against its pinned sha256."""
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / entry["file"]
    if not archive.exists():
        subprocess.run(
            [
                "npm",
                "pack",
                "--ignore-scripts",
                "--pack-destination",
                str(CACHE),
                f"{entry['name']}@{entry['version']}",
            ],
            capture_output=True,
            timeout=300,
            check=True,
        )
    return pinned(archive, entry["sha256"])


def pinned(download: Path, sha256: str) -> Path:
    """``download`` when its sha256 is the pinned one; else it is deleted and the test fails."""
    digest = hashlib.sha256(download.read_bytes()).hexdigest()
    if digest != sha256:
        download.unlink()
        pytest.fail(f"{download.name}: sha256 {digest} is not the pinned {sha256}")
    return download


def unpack(archive: Path, dest: Path) -> Path:
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    (tree,) = [p for p in dest.iterdir() if p.is_dir()]
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return tree


def permissive(client: Any, image: str, tmp_path: Path, script: str) -> str:
    """The same probe with the controls absent: root, default caps, writable root."""
    repo = make_repo(tmp_path / "perm")
    container = client.containers.create(
        image,
        ["/bin/sh", "-c", script],
        user="0:0",
        network_mode="host",
        volumes={str(repo): {"bind": "/repo", "mode": "rw"}},
        environment={"GH_TOKEN": "leak"},
    )
    try:
        container.start()
        container.wait(timeout=60)
        return str(container.logs().decode())
    finally:
        container.remove(force=True)
