"""Build the trees a comparison runs: copy chosen paths from one fresh export into another.

Both trees are our own fresh exports; no path is followed through a link (lstat only, and
every parent of a target must be a real directory inside the tree).
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath


def overlay_paths(src_tree: Path, dst_tree: Path, paths: Iterable[str]) -> None:
    """``src_tree``'s version of every path in ``dst_tree``; a path absent from src goes."""
    for path in paths:
        rel = PurePosixPath(path)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            continue
        src, dst = src_tree.joinpath(*rel.parts), dst_tree.joinpath(*rel.parts)
        if not _parents_are_dirs(dst_tree, rel):
            continue  # a file or link stands where a parent should: the path cannot exist
        _remove(dst)
        if not _parents_are_dirs(src_tree, rel):
            continue
        try:
            st = os.lstat(src)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            _make_parents(dst_tree, rel)
            shutil.copy2(src, dst, follow_symlinks=False)


def overlay_harness(base_tree: Path, head_tree: Path, paths: Iterable[str]) -> None:
    """Strict mode: base's version of every harness file in head's tree; head-only ones go."""
    overlay_paths(base_tree, head_tree, paths)


def _parents_are_dirs(root: Path, rel: PurePosixPath) -> bool:
    current = root
    for part in rel.parts[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return True  # created on demand
        if not stat.S_ISDIR(mode):
            return False
    return True


def _make_parents(root: Path, rel: PurePosixPath) -> None:
    current = root
    for part in rel.parts[:-1]:
        current = current / part
        if not os.path.lexists(current):
            current.mkdir(mode=0o755)
            os.chmod(current, 0o755)  # noqa: S103 (uid 65534 must read the tree)


def _remove(path: Path) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        shutil.rmtree(path)
    else:
        path.unlink()
