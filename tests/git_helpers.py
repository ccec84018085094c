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


def arm(repo: Path, marker: Path) -> None:
    """Every place a repository can name a command writes ``marker``."""
    touch = f"sh -c 'echo ran >> {marker}'"
    for key, value in (
        ("core.fsmonitor", touch),
        ("core.pager", touch),
        ("core.sshCommand", touch),
        ("core.askPass", touch),
        ("core.hooksPath", str(repo / ".git" / "hooks")),
        ("diff.external", touch),
        ("diff.evil.textconv", touch),
        ("diff.evil.command", touch),
        ("filter.evil.smudge", touch),
        ("filter.evil.clean", touch),
        ("filter.evil.process", touch),
        ("filter.evil.required", "true"),
        ("filter.lfs.smudge", touch),
        ("filter.lfs.process", touch),
        ("uploadpack.packObjectsHook", touch),
        ("include.path", str(repo / "extra.config")),
        ("alias.archive", f"!{touch}"),
    ):
        git(repo, "config", key, value)
    (repo / "extra.config").write_text(f"[core]\n\tpager = {touch}\n")
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-checkout", "pre-commit", "reference-transaction", "fsmonitor-watchman"):
        script = hooks / hook
        script.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
        script.chmod(0o755)
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "attributes").write_text("* filter=evil diff=evil\n")
