"""Read a tree the PR controls on the host: one reader, never following a link, every read capped.

The tree is attacker-controlled: an entry may be a symlink to a host file, a FIFO that blocks a
reader, a file of gigabytes, or a million folders. So every walk here is by ``lstat`` (a link
is an entry, judged by its text, never entered), every open is ``O_NOFOLLOW | O_NONBLOCK`` and
checked to be a regular file, and every read and walk takes its cap as a parameter: the callers
(the sandbox guard, the runners' config reads, the harness scan, the compare) keep their own.

It sits in the sandbox layer, the lowest that reads trees, so that runners and verify can use
it too (``tests/unit/test_layers.py``); it imports nothing of the project.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MAX_LINK_HOPS = 40
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CHUNK = 1 << 20


class TooManyEntries(Exception):
    """The walk reached its cap of entries (what was yielded before stands)."""


@dataclass(frozen=True)
class Entry:
    """One entry of a folder, as ``lstat`` sees it (a link is a link)."""

    rel: str  # repo-relative, "/"-separated
    name: str
    path: str  # on the host
    st: os.stat_result

    @property
    def mode(self) -> int:
        return self.st.st_mode

    @property
    def is_link(self) -> bool:
        return stat.S_ISLNK(self.mode)

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)

    @property
    def is_file(self) -> bool:
        return stat.S_ISREG(self.mode)


@dataclass(frozen=True)
class Folder:
    """A folder the walk read: its repo-relative path ("" for the root) and its entries."""

    rel: str
    entries: list[Entry]


def _enter_all(_entry: Entry) -> bool:
    return True


def walk(
    tree: Path,
    max_entries: int | None,
    enter: Callable[[Entry], bool] = _enter_all,
    skip_unreadable: bool = True,
) -> Iterator[Folder]:
    """Each folder of ``tree`` with its entries sorted by name, depth first; a sub-folder is
    entered when ``enter`` says so, a link never. Past ``max_entries`` entries in all it raises
    ``TooManyEntries`` (the folder being read is not yielded). A folder that cannot be listed is
    passed over, or raises when not ``skip_unreadable``."""
    stack = [("", str(tree))]
    count = 0
    while stack:
        rel, path = stack.pop()
        try:
            listing = os.scandir(path)
        except OSError:
            if skip_unreadable:
                continue
            raise
        entries: list[Entry] = []
        with listing:
            for item in listing:
                count += 1
                if max_entries is not None and count > max_entries:
                    raise TooManyEntries(f"more than {max_entries} entries")
                child = f"{rel}/{item.name}" if rel else item.name
                entries.append(Entry(child, item.name, item.path, item.stat(follow_symlinks=False)))
        entries.sort(key=lambda e: e.name)
        yield Folder(rel, entries)
        stack += [(e.rel, e.path) for e in entries if e.is_dir and enter(e)]


def _open_regular(path: Path | str) -> tuple[int, int] | None:
    """A descriptor on a regular file (its last component never followed, a FIFO never waited
    on) and the file's size, or None."""
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            return fd, info.st_size
    except OSError:
        pass
    os.close(fd)
    return None


def _read_up_to(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(_CHUNK, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def read_capped(path: Path | str, limit: int) -> tuple[bytes, bool] | None:
    """A regular file's first ``limit`` bytes and whether it holds more; None when it is not a
    regular file (a link, a folder, a FIFO...) or cannot be read."""
    opened = _open_regular(path)
    if opened is None:
        return None
    fd = opened[0]
    try:
        data = _read_up_to(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data[:limit], len(data) > limit


def read_whole(path: Path | str, limit: int) -> bytes | None:
    """A regular file's bytes; None when it is over ``limit`` bytes, not a regular file, or
    cannot be read."""
    opened = _open_regular(path)
    if opened is None:
        return None
    fd, size = opened
    try:
        if size > limit:
            return None
        data = _read_up_to(fd, limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None if len(data) > limit else data


def _check_relative(rel: str) -> tuple[str, ...]:
    parts = PurePosixPath(rel).parts
    if not parts or any(p in ("", ".", "..") for p in parts) or PurePosixPath(rel).is_absolute():
        raise ValueError(f"not a repo-relative path: {rel!r}")
    return parts


def read_nested(tree: Path, rel: str, limit: int) -> bytes | None:
    """The bytes of a file below ``tree`` reached through no link (None when a folder on the
    way is a link, or as ``read_whole``)."""
    parts = _check_relative(rel)
    here = tree
    for part in parts[:-1]:
        here = here / part
        if here.is_symlink():
            return None
    return read_whole(here / parts[-1], limit)


def exists(tree: Path, rel: str) -> bool:
    """Whether anything (a link too, broken or not) sits at ``tree/rel``."""
    try:
        os.lstat(tree / rel)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def is_plain_file(tree: Path, rel: str) -> bool:
    """A regular file reached through real folders only (no link followed)."""
    current = tree
    parts = PurePosixPath(rel).parts
    for index, part in enumerate(parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except OSError:
            return False
        want = stat.S_ISREG if index == len(parts) - 1 else stat.S_ISDIR
        if not want(mode):
            return False
    return True


def link_in(tree: Path) -> Callable[[str], str | None]:
    """For ``resolve``: the target of the link at a repo-relative path of ``tree``, None when
    it is no link; OSError when nothing is there."""

    def target(rel: str) -> str | None:
        path = tree / rel
        return os.readlink(path) if stat.S_ISLNK(os.lstat(path).st_mode) else None

    return target


def resolve(
    path: str, link: Callable[[str], str | None], max_hops: int = MAX_LINK_HOPS
) -> tuple[str, int] | None:
    """Where ``path`` lands after following, by their text, the links on its way (``link``
    gives a repo-relative path's target, or None), and how many it followed; None when it
    leaves the tree, takes an absolute link, loops or is deeper than ``max_hops``, or when
    ``link`` raises OSError (nothing there)."""
    parts = list(PurePosixPath(path).parts)
    done: list[str] = []
    hops = 0
    while parts:
        part = parts.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                return None
            done.pop()
            continue
        try:
            target = link("/".join([*done, part]))
        except OSError:
            return None
        if target is None:
            done.append(part)
            continue
        hops += 1
        if hops > max_hops or target.startswith("/"):
            return None
        parts = list(PurePosixPath(target).parts) + parts
    return "/".join(done), hops
