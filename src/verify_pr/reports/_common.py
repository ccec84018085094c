"""Helpers shared by the report parsers: caps, number parsing, repo-relative paths."""

from __future__ import annotations

import io
import math
import posixpath
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO, Protocol

from pydantic import ValidationError

from verify_pr.contract import MAX_REPORT_BYTES, WORK_DIR
from verify_pr.errors import ReportError

# Where the tree sits inside the container; absolute paths in reports are made relative to it.
DEFAULT_TREE_ROOT = WORK_DIR

_INT = re.compile(r"[0-9]{1,9}")
# bun writes a whole number of seconds as "0." (a trailing dot, no digits): a decimal all the same
_DECIMAL = re.compile(r"[0-9]{1,12}(?:\.[0-9]{0,12})?(?:[eE][-+]?[0-9]{1,3})?")


class ReportFile(Protocol):
    """A report on disk (the sandbox's spool): its size, and a fresh reader from byte 0."""

    size: int

    def open(self) -> BinaryIO: ...


ReportSource = bytes | ReportFile


@contextmanager
def open_report(source: ReportSource, what: str) -> Iterator[tuple[BinaryIO, int]]:
    """A reader over the report and its size, after the size checks; files are streamed."""
    if isinstance(source, bytes):
        check_size(source, what)
        yield io.BytesIO(source), len(source)
        return
    if not isinstance(getattr(source, "size", None), int):
        raise ReportError(f"{what}: expected bytes or a report file, got {type(source).__name__}")
    if source.size == 0:
        raise ReportError(f"{what}: the report is empty")
    if source.size > MAX_REPORT_BYTES:
        raise ReportError(
            f"{what}: the report is {source.size} bytes, over the {MAX_REPORT_BYTES}-byte cap"
        )
    with source.open() as stream:
        yield stream, source.size


def check_size(data: bytes, what: str) -> None:
    if not isinstance(data, bytes):
        raise ReportError(f"{what}: expected bytes, got {type(data).__name__}")
    if not data.strip():
        raise ReportError(f"{what}: the report is empty")
    if len(data) > MAX_REPORT_BYTES:
        raise ReportError(
            f"{what}: the report is {len(data)} bytes, over the {MAX_REPORT_BYTES}-byte cap"
        )


def parse_count(raw: str, what: str) -> int:
    """A non-negative integer attribute, digits only ("1_0", " 3", "-1", "3.0" are refused)."""
    if not _INT.fullmatch(raw):
        raise ReportError(f"{what} is not a non-negative integer: {raw[:40]!r}")
    return int(raw)


def parse_seconds(raw: str, what: str) -> float:
    """A duration: plain decimal only ("nan", "inf", "-1", "0x10" are refused)."""
    if not _DECIMAL.fullmatch(raw):
        raise ReportError(f"{what} is not a duration in seconds: {raw[:40]!r}")
    value = float(raw)
    if not math.isfinite(value):
        raise ReportError(f"{what} is not finite: {raw[:40]!r}")
    return value


def repo_relative(path: str | None, tree_root: str) -> str | None:
    """A report's file path made relative to the tree; None if empty or outside the tree."""
    if not path:
        return None
    norm = posixpath.normpath(path)
    if posixpath.isabs(norm):
        root = posixpath.normpath(tree_root)
        if norm == root or not norm.startswith(root.rstrip("/") + "/"):
            return None
        norm = posixpath.relpath(norm, root)
    if norm == "." or norm == ".." or norm.startswith("../"):
        return None
    return norm


def validation_report_error(what: str, exc: ValidationError, at: str = "") -> ReportError:
    """Summarise a pydantic error without echoing the (attacker-controlled) input; ``at`` is
    the location of the validated part inside the report (a streamed parser's position)."""
    errors = exc.errors(include_input=False, include_url=False)
    first = errors[0] if errors else {"loc": (), "msg": "invalid"}
    loc = ".".join([*([at] if at else []), *(str(part) for part in first["loc"])])[:200]
    msg = str(first["msg"])[:200]
    return ReportError(f"{what}: {len(errors)} problem(s); first at {loc or '<root>'}: {msg}")
