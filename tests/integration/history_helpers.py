"""The history tier's release pairs made into git repos: shared by the pairs' own test
(test_compare_history.py) and their attack twins (test_compare_history_removed.py)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.git_helpers import commit, git, init_repo
from tests.integration.helpers import fetch, fetch_npm, unpack


def replace_tree(repo: Path, tree: Path) -> None:
    """The work tree becomes a copy of ``tree`` (.git kept)."""
    for child in repo.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    shutil.copytree(tree, repo, dirs_exist_ok=True)


def two_commits(tmp_path: Path, base: Path, head: Path) -> tuple[Path, str, str]:
    repo = init_repo(tmp_path / "repo")
    replace_tree(repo, base)
    base_sha = commit(repo, {}, "base release")
    replace_tree(repo, head)
    # npm tarballs stamp every file with one fixed mtime, so a same-size edit (tanstack's
    # reordered imports) on a reused inode looks unchanged to git's stat check, and the
    # head commit lost it now and then: forget the index, so every file is hashed again
    git(repo, "rm", "-r", "--cached", "--quiet", ".")
    head_sha = commit(repo, {}, "head release")
    return repo, base_sha, head_sha


def releases(entry: dict[str, Any], tmp_path: Path) -> tuple[Path, Path]:
    """A pair's two releases, fetched (pinned by sha256) and unpacked."""
    get = fetch if entry["runner"] == "pytest" else fetch_npm
    base = unpack(get(entry["base"]), tmp_path / "base-src")
    head = unpack(get(entry["head"]), tmp_path / "head-src")
    return base, head
