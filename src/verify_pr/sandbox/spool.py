"""A returned report, written to disk as it streams in: the host never holds it in memory.

The file is a private temporary file (mode 0600), removed when the spool is closed or
collected. It is held as a raw descriptor with a ``weakref.finalize``: a spool that is simply
dropped is cleaned up without an unclosed-file warning, whenever the collector runs. Each
reader opens it afresh, so readers never share a file offset (and each reader is closed by
whoever opened it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import weakref
from typing import BinaryIO


def _remove(fd: int, path: str) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(path)


class ReportSpool:
    def __init__(self) -> None:
        self._fd, self._path = tempfile.mkstemp(prefix="vpr-report-", suffix=".tmp")
        self._finalizer = weakref.finalize(self, _remove, self._fd, self._path)
        self.size = 0

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        self.size += len(data)

    def open(self) -> BinaryIO:
        """A new reader from byte 0 (the caller closes it)."""
        return open(self._path, "rb")

    def copy_to(self, sink: BinaryIO) -> None:
        with self.open() as source:
            shutil.copyfileobj(source, sink, 1024 * 1024)

    def close(self) -> None:
        self._finalizer()
