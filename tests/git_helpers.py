"""Build small git repositories for tests: git init, commits, no network, no user config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/nonexistent",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "fixture",
    "GIT_AUTHOR_EMAIL": "fixture@verify-pr.invalid",
    "GIT_COMMITTER_NAME": "fixture",
    "GIT_COMMITTER_EMAIL": "fixture@verify-pr.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    "LC_ALL": "C",
}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", *args],
        cwd=repo,
        env=_ENV,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode()


def init_repo(path: Path, object_format: str = "sha1") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "--quiet", f"--object-format={object_format}", "-b", "main")
    return path


def commit(repo: Path, files: dict[str, str | bytes | None], message: str = "change") -> str:
    """Write (str/bytes) or delete (None) the files, commit everything, return the full id."""
    for name, content in files.items():
        target = repo / name
        if content is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def checkout(repo: Path, sha: str) -> None:
    git(repo, "checkout", "--quiet", sha)
