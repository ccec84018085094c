"""Read a PR's config files as data: never follow a link, never execute, cap every read.

The tree is attacker-controlled: a config file may be a symlink to a host file, a FIFO that
blocks a reader, or huge. Those are simply not read (detection sees no evidence there, and the
tamper check reports them).
"""

from __future__ import annotations

import configparser
import json
import os
import stat
import tomllib
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Any

from verify_pr.sandbox import tree_files

MAX_CONFIG_BYTES = 512 * 1024
MAX_WALK_ENTRIES = 20_000
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__"})


class Entry(StrEnum):
    ABSENT = "absent"
    FILE = "file"
    DIRECTORY = "directory"
    SYMLINK = "symlink"
    OTHER = "other"


def entry(tree: Path, name: str) -> Entry:
    """What sits at ``tree/name`` (lstat: a symlink is reported as one, not followed)."""
    _check_name(name)
    try:
        mode = os.lstat(tree / name).st_mode
    except FileNotFoundError:
        return Entry.ABSENT
    except OSError:
        return Entry.OTHER
    if stat.S_ISLNK(mode):
        return Entry.SYMLINK
    if stat.S_ISREG(mode):
        return Entry.FILE
    if stat.S_ISDIR(mode):
        return Entry.DIRECTORY
    return Entry.OTHER


def read_text(tree: Path, name: str) -> str | None:
    """A top-level regular file as UTF-8 text; None if absent, a link, special, big or binary."""
    _check_name(name)
    data = _read_bytes(tree / name, MAX_CONFIG_BYTES)
    if data is None:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def _read_bytes(path: Path, limit: int) -> bytes | None:
    """A regular file's bytes (the last component never followed); None if over ``limit``."""
    return tree_files.read_whole(path, limit)


def read_json_object(tree: Path, name: str) -> dict[str, Any] | None:
    text = read_text(tree, name)
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def read_toml(tree: Path, name: str) -> dict[str, Any] | None:
    text = read_text(tree, name)
    if text is None:
        return None
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


def read_ini(tree: Path, name: str) -> configparser.ConfigParser | None:
    text = read_text(tree, name)
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=name)
    except configparser.Error:
        return None
    return parser


def package_json(tree: Path) -> dict[str, Any]:
    """package.json as a dict ({} if absent or unusable)."""
    return read_json_object(tree, "package.json") or {}


def dependencies(pkg: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for key in ("devDependencies", "dependencies"):
        deps = pkg.get(key)
        if isinstance(deps, dict):
            names.update(k for k in deps if isinstance(k, str))
    return names


def table(data: dict[str, Any] | None, *path: str) -> dict[str, Any] | None:
    """``data[path[0]][path[1]]...`` if every step is a table."""
    node: Any = data
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node if isinstance(node, dict) else None


def find_named(tree: Path, filename: str) -> tuple[list[str], bool]:
    """Repo-relative paths of files called ``filename`` (links not followed), and whether the
    walk stopped at its entry cap."""
    _dirs, files, capped = walk(tree)
    return [f for f in files if PurePosixPath(f).name == filename], capped


def walk(tree: Path) -> tuple[list[str], list[str], bool]:
    """Repo-relative (directories, files) under ``tree``, links not followed, and whether the
    walk stopped at its entry cap (counted after each folder, skipped folders not counted).
    A skipped directory (node_modules, .git...) is listed but not entered; a link is listed
    as a directory when it points at one (as ``os.walk`` lists it), never entered."""
    dirs: list[str] = []
    files: list[str] = []
    seen = 0
    for folder in tree_files.walk(tree, None, lambda e: e.name not in _SKIP_DIRS):
        for e in folder.entries:
            as_dir = e.is_dir or (e.is_link and os.path.isdir(e.path))
            (dirs if as_dir else files).append(e.rel)
            seen += not (as_dir and e.name in _SKIP_DIRS)
        if seen > MAX_WALK_ENTRIES:
            return sorted(dirs), sorted(files), True
    return sorted(dirs), sorted(files), False


# a file the walk found, read through no link (config_code, expected_failures)
read_nested_bytes = tree_files.read_nested


def _check_name(name: str) -> None:
    # Only fixed, top-level names from our own code reach here; refuse anything else loudly.
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a top-level file name: {name!r}")
