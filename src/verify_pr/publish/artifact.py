"""Artifact intake: a zip from the verify job, treated as attacker-controlled.

A fork can rewrite the verify workflow and upload anything under the expected name, so the
zip is checked before a byte of it is written: a member count cap, only exact names from the
caller's allow-list, no directories, links or other special files (zip external attributes),
no absolute paths, backslashes or ``..``, no duplicates, no encryption, only stored/deflated
members, per-file and total size caps, and a compression-ratio cap against zip bombs. Sizes
from the headers are not trusted: every member is read with a running count. Files are then
returned by name (``read_artifact``), never written to disk.
"""

from __future__ import annotations

import io
import os
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from verify_pr.errors import ReportError

_CHUNK = 64 * 1024
_ENCRYPTED_FLAG = 0x1
_ALLOWED_METHODS = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED})
# What ``zipfile`` raises on a malformed archive besides BadZipFile: a corrupt deflate stream
# (zlib.error), unsupported flag bits or features (NotImplementedError), an empty member name
# (IndexError), a bad header (struct.error, ValueError, KeyError), a truncated file (EOFError),
# or a bad CRC or password need (BadZipFile, RuntimeError).
_MALFORMED = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    zlib.error,
    struct.error,
    EOFError,
    ValueError,
    KeyError,
    IndexError,
    NotImplementedError,
    RuntimeError,
    OverflowError,
    OSError,
)


@dataclass(frozen=True)
class ArtifactLimits:
    """Caps for one artifact; the defaults fit a result bundle of a few reports."""

    max_archive_bytes: int = 16 * 1024 * 1024
    max_total_bytes: int = 32 * 1024 * 1024
    max_file_bytes: int = 16 * 1024 * 1024
    max_members: int = 24  # a compare artifact: 13 names (three listings)
    max_ratio: int = 100
    """Uncompressed / compressed, checked for members above ``ratio_floor_bytes``."""
    ratio_floor_bytes: int = 64 * 1024


DEFAULT_LIMITS = ArtifactLimits()


def _refuse(message: str) -> ReportError:
    return ReportError(
        f"artifact refused: {message}",
        hint="the verify job's artifact is not trusted; it must hold only the expected files",
    )


def _check_allowed_names(names: Iterable[str]) -> frozenset[str]:
    allowed = frozenset(names)
    for name in allowed:
        parts = name.split("/")
        if (
            not name
            or name.startswith("/")
            or "\\" in name
            or any(part in ("", ".", "..") for part in parts)
        ):
            raise ValueError(f"allow-list name {name!r} is not a plain relative path")
    return allowed


def _check_member(info: zipfile.ZipInfo, allowed: frozenset[str], seen: set[str]) -> None:
    name = info.filename
    if not name:
        raise _refuse("a member without a name")
    mode = info.external_attr >> 16
    if info.is_dir() or stat.S_ISDIR(mode):
        raise _refuse(f"directory member {name!r}")
    if stat.S_ISLNK(mode):
        raise _refuse(f"symbolic link member {name!r}")
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
        raise _refuse(f"special file member {name!r}")
    if name.startswith("/") or "\\" in name or (len(name) > 1 and name[1] == ":"):
        raise _refuse(f"absolute or non-POSIX path {name!r}")
    if ".." in name.split("/"):
        raise _refuse(f"path traversal in {name!r}")
    if name in seen:
        raise _refuse(f"duplicate member {name!r}")
    seen.add(name)
    if name not in allowed:
        raise _refuse(f"unexpected member {name!r}")
    if info.flag_bits & _ENCRYPTED_FLAG:
        raise _refuse(f"encrypted member {name!r}")
    if info.compress_type not in _ALLOWED_METHODS:
        raise _refuse(f"unsupported compression in {name!r}")


def _check_sizes(infos: list[zipfile.ZipInfo], limits: ArtifactLimits) -> None:
    total = 0
    for info in infos:
        if info.file_size > limits.max_file_bytes:
            raise _refuse(f"{info.filename!r} is {info.file_size} bytes, over the file cap")
        if info.file_size > limits.ratio_floor_bytes and info.file_size > limits.max_ratio * max(
            info.compress_size, 1
        ):
            raise _refuse(f"{info.filename!r} has a compression ratio over {limits.max_ratio}")
        total += info.file_size
    if total > limits.max_total_bytes:
        raise _refuse(f"{total} bytes uncompressed, over the total cap")


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: ArtifactLimits) -> bytes:
    """The member's bytes, counted as they are inflated (headers may lie)."""
    cap = min(info.file_size, limits.max_file_bytes)
    buffer = bytearray()
    with archive.open(info) as member:
        while chunk := member.read(_CHUNK):
            buffer += chunk
            if len(buffer) > cap:
                raise _refuse(f"{info.filename!r} inflates past its declared size")
    return bytes(buffer)


def _load(source: bytes | Path, limits: ArtifactLimits) -> bytes:
    if isinstance(source, bytes):
        data = source
    else:
        try:
            fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as exc:
            raise _refuse(f"cannot open {source}: {exc.strerror}") from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise _refuse(f"{source} is not a regular file")
            data = os.read(fd, limits.max_archive_bytes + 1)
        finally:
            os.close(fd)
    if len(data) > limits.max_archive_bytes:
        raise _refuse(f"the archive is over {limits.max_archive_bytes} bytes")
    return data


def read_artifact(
    source: bytes | Path,
    *,
    allowed_names: Iterable[str],
    required_names: Iterable[str] = (),
    limits: ArtifactLimits = DEFAULT_LIMITS,
) -> dict[str, bytes]:
    """Validate the zip in memory and return its files by name; ``ReportError`` if refused."""
    allowed = _check_allowed_names(allowed_names)
    required = frozenset(required_names)
    if not required <= allowed:
        raise ValueError("required names must be allowed names")
    data = _load(source, limits)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > limits.max_members:
                raise _refuse(f"{len(infos)} members, over the cap of {limits.max_members}")
            seen: set[str] = set()
            for info in infos:
                _check_member(info, allowed, seen)
            _check_sizes(infos, limits)
            files = {info.filename: _read_member(archive, info, limits) for info in infos}
    except _MALFORMED as exc:
        raise _refuse(f"not a valid zip archive ({type(exc).__name__}: {str(exc)[:200]})") from exc
    missing = sorted(required - files.keys())
    if missing:
        raise _refuse(f"missing {', '.join(missing)}")
    return files
