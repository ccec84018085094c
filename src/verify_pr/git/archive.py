"""Extract a ``git archive`` tar into a fresh folder the sandbox user (uid 65534) can read.

tarfile's ``data`` filter, plus our own refusals: absolute paths, ``..``, hard links, devices
and FIFOs, symlinks that point outside the tree, and more entries than any real tree has.
"""

from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path

from verify_pr.errors import GitError

MAX_ARCHIVE_ENTRIES = 500_000


def extract_tar(tar_path: Path, dest: Path) -> None:
    """Extract with the ``data`` filter, then our own refusals, then sandbox-readable modes."""
    try:
        with tarfile.open(tar_path, mode="r:") as tar:
            members = []
            for count, member in enumerate(tar, start=1):
                if count > MAX_ARCHIVE_ENTRIES:
                    raise GitError(f"the archive has more than {MAX_ARCHIVE_ENTRIES} entries")
                if member.type == tarfile.XGLTYPE or member.type == tarfile.XHDTYPE:
                    continue
                _check_member(member)
                members.append(member)
            tar.extractall(dest, members=members, filter="data")
    except tarfile.TarError as exc:
        raise GitError(f"the archive was refused: {exc}") from exc
    normalise_modes(dest)


def _check_member(member: tarfile.TarInfo) -> None:
    name = member.name
    if name.startswith("/") or "\0" in name:
        raise GitError(f"archive entry {name[:80]!r} has an absolute path")
    if any(part == ".." for part in name.split("/")):
        raise GitError(f"archive entry {name[:80]!r} escapes the folder")
    if member.islnk():
        raise GitError(f"archive entry {name[:80]!r} is a hard link")
    if member.ischr() or member.isblk() or member.isfifo() or member.isdev():
        raise GitError(f"archive entry {name[:80]!r} is a device or FIFO")
    if member.issym():
        target = member.linkname
        if target.startswith("/"):
            raise GitError(f"symlink {name[:80]!r} has an absolute target")
        parent = os.path.dirname(name)
        resolved = os.path.normpath(os.path.join(parent, target))
        if resolved == ".." or resolved.startswith("../"):
            raise GitError(f"symlink {name[:80]!r} points outside the tree")
    elif not (member.isfile() or member.isdir()):
        raise GitError(f"archive entry {name[:80]!r} is of an unsupported type")


def normalise_modes(root: Path) -> None:
    """Dirs 0755, files 0644 (0755 when git recorded an exec bit); links are left alone."""
    os.chmod(root, 0o755)  # noqa: S103 (uid 65534 must read the tree)
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                continue
            if stat.S_ISDIR(st.st_mode):
                os.chmod(path, 0o755)  # noqa: S103
            elif stat.S_ISREG(st.st_mode):
                os.chmod(path, 0o755 if st.st_mode & stat.S_IXUSR else 0o644)
            else:
                raise GitError(f"unexpected file type at {path}")
