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
from pathlib import Path
from typing import Any

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
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    return None if len(data) > limit else data


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
    found: list[str] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(tree, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        seen += len(dirnames) + len(filenames)
        if filename in filenames:
            found.append(str((Path(dirpath) / filename).relative_to(tree)))
        if seen > MAX_WALK_ENTRIES:
            return sorted(found), True
    return sorted(found), False


def walk(tree: Path) -> tuple[list[str], list[str], bool]:
    """Repo-relative (directories, files) under ``tree``, links not followed, and whether the
    walk stopped at its entry cap. A skipped directory (node_modules, .git...) is listed but
    not entered."""
    dirs: list[str] = []
    files: list[str] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(tree, followlinks=False):
        here = Path(dirpath).relative_to(tree)
        dirs.extend(str(here / d) for d in dirnames)
        files.extend(str(here / f) for f in filenames)
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        seen += len(dirnames) + len(filenames)
        if seen > MAX_WALK_ENTRIES:
            return sorted(dirs), sorted(files), True
    return sorted(dirs), sorted(files), False


def read_nested_bytes(tree: Path, relpath: str, limit: int) -> bytes | None:
    """The bytes of a file the walk found (no component followed if it is a link)."""
    parts = Path(relpath).parts
    if not parts or any(part in ("", ".", "..") for part in parts) or Path(relpath).is_absolute():
        raise ValueError(f"not a repo-relative path: {relpath!r}")
    here = tree
    for part in parts[:-1]:
        here = here / part
        if here.is_symlink():
            return None
    return _read_bytes(here / parts[-1], limit)


def _check_name(name: str) -> None:
    # Only fixed, top-level names from our own code reach here; refuse anything else loudly.
    if not name or "/" in name or name in (".", ".."):
        raise ValueError(f"not a top-level file name: {name!r}")
