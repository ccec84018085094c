"""Helpers for tests that run the real runner (as a subprocess, exactly as a user would)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class CliRun:
    code: int
    stdout: str
    stderr: str
    out: Path

    @property
    def result(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.out / "result.json").read_text())
        return data

    @property
    def output(self) -> bytes:
        return (self.out / "output.txt").read_bytes()

    @property
    def files(self) -> set[str]:
        return {p.name for p in self.out.iterdir()} if self.out.exists() else set()


def make_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    """A repo the sandbox user can read (pytest's tmp_path is 0700)."""
    repo = root / "repo"
    repo.mkdir(parents=True)
    for name, text in (files or {"README": "sample\n"}).items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for path in [root, repo, *repo.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return repo


def run_cli(
    args: list[str], out: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> CliRun:
    proc = subprocess.run(
        [sys.executable, "-m", "verify_pr.sandbox.cli", *args, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        check=False,
    )
    return CliRun(proc.returncode, proc.stdout, proc.stderr, out)


def sandbox(
    tmp_path: Path,
    image: str,
    cmd: str,
    *extra: str,
    files: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
) -> CliRun:
    repo = make_repo(tmp_path, files)
    return run_cli(
        ["--repo", str(repo), "--image", image, "--cmd", cmd, *extra], tmp_path / "out", env
    )
