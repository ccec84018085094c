"""Host-side refusals before anything launches: the repo and OUT (the report path: ``contract``).

Nothing here follows a link the PR controls: the tree walk (``tree_files.walk``) uses ``lstat``
only, and links are judged by their text.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from verify_pr.contract import SANDBOX_OUT_FILES
from verify_pr.errors import InputRefused
from verify_pr.sandbox import tree_files

_FORBIDDEN_REPOS = ("/proc", "/sys", "/dev", "/run", "/var/run", "/var/lib/docker", "/etc", "/boot")
MAX_TREE_ENTRIES = 500_000


def _is_within(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def check_repo(repo_arg: str, home: str | None) -> Path:
    """The repo must be a real directory that is not a system or docker path, nor HOME."""
    raw = Path(repo_arg)
    if not raw.exists():
        raise InputRefused(f"--repo {repo_arg!r} does not exist")
    repo = raw.resolve(strict=True)
    if not repo.is_dir():
        raise InputRefused(f"--repo {repo_arg!r} is not a directory")
    if repo == Path("/"):
        raise InputRefused("--repo must not be /")
    if home:
        home_path = Path(home).resolve()
        if _is_within(home_path, repo):
            raise InputRefused(f"--repo {str(repo)!r} is HOME or an ancestor of it")
    for forbidden in _FORBIDDEN_REPOS:
        if _is_within(repo, Path(forbidden)):
            raise InputRefused(f"--repo {str(repo)!r} is inside {forbidden}, a system path")
    if any(part.startswith("docker.sock") for part in repo.parts):
        raise InputRefused("--repo must not be a docker socket path")
    return repo


def check_tree(repo: Path) -> None:
    """Refuse links out of the repo, special files, and entries the sandbox user cannot read."""
    root = str(repo)
    _check_readable(root, root, os.lstat(root))
    try:
        # a folder is entered only after its own entry passed (the walk is lazy)
        for folder in tree_files.walk(repo, MAX_TREE_ENTRIES, skip_unreadable=False):
            for entry in folder.entries:
                if entry.is_dir or entry.is_file:
                    _check_readable(root, entry.path, entry.st)
                elif entry.is_link:
                    _check_link(root, entry.path)
                else:
                    raise InputRefused(
                        f"{_shown(root, entry.path)!r} is not a regular file, directory or symlink"
                    )
    except tree_files.TooManyEntries:
        raise InputRefused(f"--repo has more than {MAX_TREE_ENTRIES} entries") from None


def _shown(root: str, path: str) -> str:
    rel = os.path.relpath(path, root)
    return os.fsencode(rel).decode("utf-8", "backslashreplace")


def _check_link(root: str, path: str) -> None:
    # Judged by its text, never followed; a chain is judged hop by hop, each hop an entry.
    target = os.readlink(path)
    if os.path.isabs(target):
        raise InputRefused(f"symlink {_shown(root, path)!r} has an absolute target")
    resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
    if not _is_within(Path(resolved), Path(root)):
        raise InputRefused(f"symlink {_shown(root, path)!r} resolves outside the repo")


def _check_readable(root: str, path: str, st: os.stat_result) -> None:
    # The copy runs as uid 65534, which is neither owner nor group of the host's files.
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(st.st_mode) else 0)
    if st.st_uid != 65534 and st.st_mode & need != need:
        raise InputRefused(
            f"{_shown(root, path)!r} is not readable by the sandbox user (uid 65534)",
            hint=f"run: chmod -R o+rX {root}",
        )


def check_out(out_arg: str, repo: Path, allowed: frozenset[str] = SANDBOX_OUT_FILES) -> Path:
    """OUT is created if absent; it must not overlap the repo or hold other files."""
    out = Path(out_arg)
    if out.is_symlink():
        raise InputRefused(f"--out {out_arg!r} is a symlink")
    if out.exists() and not out.is_dir():
        raise InputRefused(f"--out {out_arg!r} exists and is not a directory")
    resolved = out.resolve()
    if _is_within(resolved, repo) or _is_within(repo, resolved):
        raise InputRefused("--repo and --out must not overlap")
    if resolved.exists():
        extra = sorted(set(os.listdir(resolved)) - allowed)
        if extra:
            raise InputRefused(
                f"--out {out_arg!r} holds files that are not verify-pr's: {extra[:3]}",
                hint="give an empty or new directory",
            )
    return resolved
