"""The untrusted source repository, read as files and never opened as a repository.

Where its object store, refs and index are (a work tree, a linked worktree or a bare repo), and
copies of its branch, tag and remote refs, HEAD and index into the shadow repository, so the
shadow can resolve ``main`` or read the work tree's status. Only data is copied: regular files,
size-capped, each ref checked to be an id or a symbolic ref. The source's config, hooks,
attributes, ``refs/replace`` and reflogs are never read.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from verify_pr.errors import GitError, InputRefused

# refs a user names on the command line; never refs/replace (it rewrites objects)
REF_ROOTS = ("refs/heads/", "refs/tags/", "refs/remotes/")
MAX_REFS = 100_000
MAX_REF_FILE_BYTES = 512
MAX_PACKED_REFS_BYTES = 64 << 20
MAX_INDEX_BYTES = 1 << 30
MAX_EXCLUDE_BYTES = 1 << 20
_ID = r"(?:[0-9a-f]{40}|[0-9a-f]{64})"
_LOOSE_VALUE = re.compile(rf"{_ID}|ref: refs/(?:heads|tags|remotes)/[^\s\0]+")
_PACKED_LINE = re.compile(rf"({_ID}) (refs/(?:heads|tags|remotes)/[^\s\0]+)")
_PEELED_LINE = re.compile(rf"\^{_ID}")


@dataclass(frozen=True)
class SourceDirs:
    """The folders of the source: its work tree (None when bare), its own git dir (HEAD,
    index) and the common dir (objects, refs), which differ in a linked worktree."""

    work_tree: Path | None
    gitdir: Path
    common: Path


def locate(source: Path) -> SourceDirs:
    """Found by reading files (never by asking git inside the source, which reads its config)."""
    try:
        root = source.resolve(strict=True)
    except OSError as exc:
        raise InputRefused(f"--git {str(source)!r} does not exist") from exc
    if not root.is_dir():
        raise InputRefused(f"--git {str(source)!r} is not a directory")
    dotgit = root / ".git"
    work_tree: Path | None = root
    if dotgit.is_file():
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
        if not text.startswith("gitdir: "):
            raise GitError(f"{dotgit} is not a gitdir file")
        gitdir = (root / text[len("gitdir: ") :]).resolve()
    elif dotgit.is_dir():
        gitdir = dotgit.resolve()
    elif (root / "objects").is_dir() and (root / "HEAD").is_file():
        gitdir, work_tree = root, None
    else:
        raise InputRefused(f"--git {str(source)!r} is not a git repository")
    common = gitdir
    commondir = gitdir / "commondir"
    if commondir.is_file():
        common = (gitdir / commondir.read_text(encoding="utf-8").strip()).resolve()
    return SourceDirs(work_tree, gitdir, common)


def objects_dir(dirs: SourceDirs) -> Path:
    """The object store, as a path that can be written into ``objects/info/alternates``."""
    objects = dirs.common / "objects"
    if not objects.is_dir():
        raise GitError(f"no object store at {objects}")
    if any(ch in str(objects) for ch in "\n\r\0") or not objects.is_absolute():
        raise GitError("the object store path cannot be used as an alternate")
    return objects


def object_format(dirs: SourceDirs) -> str:
    """sha256 when the source's config says ``[extensions] objectformat = sha256`` (read as
    text: a lie only makes every later git command fail), else sha1."""
    data = _read_regular(dirs.common / "config", MAX_EXCLUDE_BYTES) or b""
    section = ""
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.strip().lower()
        if line.startswith("["):
            section = line
        elif section == "[extensions]" and re.fullmatch(r"objectformat\s*=\s*sha256", line):
            return "sha256"
    return "sha1"


def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes; None for anything else."""
    found = _read_regular_stat(path, limit)
    return None if found is None else found[0]


def _read_regular_stat(path: Path, limit: int) -> tuple[bytes, os.stat_result] | None:
    """:func:`_read_regular`, with the stat of the file it read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read(limit + 1)[:limit], info
    finally:
        os.close(fd)


def _loose_value(path: Path) -> str | None:
    data = _read_regular(path, MAX_REF_FILE_BYTES)
    if data is None:
        return None
    value = data.decode("ascii", "replace").strip()
    return value if _LOOSE_VALUE.fullmatch(value) else None


def copy_refs(dirs: SourceDirs, shadow: Path) -> None:
    """The source's branches, tags, remote refs and HEAD, into the shadow (ids as data)."""
    if (dirs.common / "reftable").exists():
        raise InputRefused(
            "--git keeps its refs in a reftable, which verify-pr does not read: "
            "give full commit ids"
        )
    count = 0
    for root in REF_ROOTS:
        top = dirs.common / root
        if top.is_symlink() or not top.is_dir():
            continue
        for folder, _dirs, files in os.walk(top, followlinks=False):
            for name in files:
                source = Path(folder) / name
                value = None if name.endswith(".lock") else _loose_value(source)
                if value is None:
                    continue  # a lock, a symlink, garbage: git would not read it as a ref
                count += 1
                if count > MAX_REFS:
                    raise InputRefused(f"--git has over {MAX_REFS} refs: give full commit ids")
                dest = shadow / source.relative_to(dirs.common)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(value + "\n", encoding="ascii")
    packed = _read_regular(dirs.common / "packed-refs", MAX_PACKED_REFS_BYTES)
    if packed:
        (shadow / "packed-refs").write_bytes(_kept_packed_refs(packed))
    head = _loose_value(dirs.gitdir / "HEAD")
    if head is not None:
        (shadow / "HEAD").write_text(head + "\n", encoding="ascii")


def _kept_packed_refs(data: bytes) -> bytes:
    """packed-refs lines for branches, tags and remotes, each tag's peeled line after it."""
    kept: list[str] = []
    keeping = False
    for line in data.decode("ascii", "replace").splitlines():
        if _PACKED_LINE.fullmatch(line):
            kept.append(line)
            keeping = True
        elif keeping and _PEELED_LINE.fullmatch(line):
            kept.append(line)
        else:
            keeping = False
        if len(kept) > MAX_REFS * 2:
            raise InputRefused(f"--git has over {MAX_REFS} refs: give full commit ids")
    return "".join(f"{line}\n" for line in kept).encode("ascii")


def copy_index(dirs: SourceDirs, shadow: Path) -> bool:
    """The work tree's index (and a split index's shared part) and ``info/exclude`` into the
    shadow, for ``git status``; False when there is no index to read."""
    found = _read_regular_stat(dirs.gitdir / "index", MAX_INDEX_BYTES)
    if found is None:
        return False
    index, info = found
    (shadow / "index").write_bytes(index)
    # The copy keeps the index's mtime: git trusts an entry's stat data only when the file is
    # older than the index ("racy git"), so a copy stamped now would hide an edit made in the
    # same second as the commit, with the same size (git compares whole seconds).
    os.utime(shadow / "index", ns=(info.st_atime_ns, info.st_mtime_ns))
    for shared in dirs.gitdir.glob("sharedindex.*"):
        data = _read_regular(shared, MAX_INDEX_BYTES)
        if data is not None and re.fullmatch(rf"sharedindex\.{_ID}", shared.name):
            (shadow / shared.name).write_bytes(data)
    exclude = _read_regular(dirs.common / "info" / "exclude", MAX_EXCLUDE_BYTES)
    if exclude is not None:
        (shadow / "info").mkdir(exist_ok=True)
        (shadow / "info" / "exclude").write_bytes(exclude)
    return True
