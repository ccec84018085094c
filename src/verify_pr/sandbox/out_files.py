"""Write OUT atomically: a temp file opened with O_EXCL|O_NOFOLLOW in OUT, then a rename.

Only the host writes here, and only these names; result.json goes last, so a reader that
sees it also sees the output and report it describes.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from verify_pr.contract import COVERAGE_FILE, OUTPUT_FILE, REPORT_FILE, RESULT_FILE
from verify_pr.models.sandbox import SandboxResult
from verify_pr.sandbox.spool import ReportSpool


def write_atomic(out: Path, name: str, data: bytes | ReportSpool) -> None:
    tmp = out / f".{name}.{secrets.token_hex(8)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, ReportSpool):
                data.copy_to(handle)  # streamed: a report can be up to MAX_REPORT_BYTES
            else:
                handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, out / name)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _unlink(out: Path, name: str) -> None:
    (out / name).unlink(missing_ok=True)


def write_out(
    out: Path,
    result: SandboxResult,
    output: bytes,
    report: ReportSpool | None,
    coverage: ReportSpool | None = None,
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    _unlink(out, RESULT_FILE)
    write_atomic(out, OUTPUT_FILE, output)
    for name, spool in ((REPORT_FILE, report), (COVERAGE_FILE, coverage)):
        if spool is None:
            _unlink(out, name)
        else:
            write_atomic(out, name, spool)
    write_atomic(out, RESULT_FILE, result.model_dump_json(indent=2).encode() + b"\n")
