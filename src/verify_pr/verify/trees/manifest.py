"""A tree as a list of what to write, and the trees of a compare written from it side by side.

A ``Folder`` maps each name to a ``File`` (the export's file it is copied from), a ``Link`` or
a ``Folder``. ``read`` takes one from an export; ``overlay`` gives a path another export's
version, as ``overlay.overlay_paths`` does on disk, without writing anything; ``write`` makes
the trees at once, entry by entry: each name is created in every tree that has it before the
next name is (``docs/threat-model.md``, "What could tell the sides apart"), so before's and
head's entries are made within microseconds of each other. What a test could read of when a
tree was made is then the same on both sides: the change times (set by the kernel at each
write, no call can set them back), and the inode numbers, handed out in turn. Written one
tree after the other, the tree made first is older by the time the other took to write,
which a PR can make seconds long with filler files.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

FIXED_TIME = 1_000_000_000  # 2001-09-09T01:46:40Z: no commit's time, the same for every tree
FILE_MODE = 0o644
EXEC_MODE = 0o755
DIR_MODE = 0o755


@dataclass(frozen=True)
class File:
    source: Path  # the export's file, copied as it is
    executable: bool


@dataclass(frozen=True)
class Link:
    target: str


Folder = dict[str, "File | Link | Folder"]


def read(root: Path) -> Folder:
    """The export at ``root`` as a ``Folder`` (lstat only: no link is followed; entries other
    than files, links and folders are left out: our exports hold none)."""
    folder: Folder = {}
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.is_symlink():
                folder[entry.name] = Link(os.readlink(entry.path))
            elif entry.is_dir(follow_symlinks=False):
                folder[entry.name] = read(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                mode = entry.stat(follow_symlinks=False).st_mode
                folder[entry.name] = File(Path(entry.path), bool(mode & 0o111))
    return folder


def overlay(dst: Folder, src: Folder, paths: Iterable[str]) -> None:
    """``src``'s version of every path in ``dst``; a path absent from ``src`` (or a folder
    there) goes. Paths in the order given, each as ``overlay.overlay_paths`` takes it on disk:
    one under a file or link of ``dst`` is left alone; missing parents are made."""
    for path in paths:
        rel = PurePosixPath(path)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            continue
        *parents, name = rel.parts
        blocked, parent = _walk(dst, parents)
        if blocked:
            continue  # a file or link stands where a parent should: the path cannot exist
        if parent is not None:
            parent.pop(name, None)
        blocked, source_parent = _walk(src, parents)
        if blocked or source_parent is None:
            continue
        entry = source_parent.get(name)
        if isinstance(entry, File | Link):
            _make_parents(dst, parents)[name] = entry


def _walk(folder: Folder, parts: Sequence[str]) -> tuple[bool, Folder | None]:
    """(whether a file or link stands in the way, the folder at ``parts`` or None when a part
    is missing)."""
    current = folder
    for part in parts:
        entry = current.get(part)
        if entry is None:
            return False, None
        if not isinstance(entry, dict):
            return True, None
        current = entry
    return False, current


def _make_parents(folder: Folder, parts: Sequence[str]) -> Folder:
    current = folder
    for part in parts:
        entry = current.setdefault(part, {})
        assert isinstance(entry, dict)  # noqa: S101 (``overlay`` checked the way is folders)
        current = entry
    return current


def write(folders: Sequence[Folder], roots: Sequence[Path]) -> None:
    """Each ``folders[i]`` written at ``roots[i]`` (made here), all at once: names in sorted
    order, each name made in every tree that has it before the next; every file 0644 (0755
    when its export's was executable), every folder 0755, links as links, and ``FIXED_TIME``
    on every entry, a folder's set after its content (making an entry changes its folder's
    time)."""
    for root in roots:
        root.mkdir(mode=DIR_MODE)
    _at_once(list(folders), list(roots), _make, _close_folder)


def restamp(roots: Sequence[Path], folders: Sequence[Folder] | None = None) -> None:
    """``FIXED_TIME`` set again on every entry of ``roots`` at once, entry by entry as
    ``write`` makes them: the change times of trees written at different moments (before
    rebuilt after the runs) are then again within microseconds of each other. ``folders``:
    the trees as already read (else read here)."""
    known = list(folders) if folders is not None else [read(root) for root in roots]
    _at_once(known, list(roots), _stamp, _stamp_folder)


def _at_once(
    folders: list[Folder],
    roots: list[Path],
    on_entry: Callable[[File | Link | Folder, Path], None],
    on_folder_done: Callable[[Path], None],
) -> None:
    """``on_entry`` for each name, in sorted order, in every tree that has it before the next
    name; a folder's content next (in every tree that has it as a folder), then
    ``on_folder_done`` for each of ``roots``."""
    names: set[str] = set()
    for folder in folders:
        names.update(folder)
    for name in sorted(names):
        below: list[tuple[Folder, Path]] = []
        for folder, root in zip(folders, roots, strict=True):
            entry = folder.get(name)
            if entry is None:
                continue
            on_entry(entry, root / name)
            if isinstance(entry, dict):
                below.append((entry, root / name))
        if below:
            _at_once([f for f, _ in below], [r for _, r in below], on_entry, on_folder_done)
    for root in roots:
        on_folder_done(root)


def _make(entry: File | Link | Folder, target: Path) -> None:
    if isinstance(entry, dict):
        target.mkdir(mode=DIR_MODE)  # its time: ``_close_folder``, after its content
    elif isinstance(entry, Link):
        os.symlink(entry.target, target)
        os.utime(target, (FIXED_TIME, FIXED_TIME), follow_symlinks=False)
    else:
        shutil.copyfile(entry.source, target, follow_symlinks=False)
        os.chmod(target, EXEC_MODE if entry.executable else FILE_MODE)
        os.utime(target, (FIXED_TIME, FIXED_TIME))


def _close_folder(root: Path) -> None:
    os.chmod(root, DIR_MODE)
    os.utime(root, (FIXED_TIME, FIXED_TIME))


def _stamp(entry: File | Link | Folder, target: Path) -> None:
    if not isinstance(entry, dict):  # a folder's: ``_stamp_folder``, after its content
        os.utime(target, (FIXED_TIME, FIXED_TIME), follow_symlinks=False)


def _stamp_folder(root: Path) -> None:
    os.utime(root, (FIXED_TIME, FIXED_TIME))
