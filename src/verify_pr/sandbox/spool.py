"""A returned report, written to disk as it streams in: the host never holds it in memory.

The file is a private temporary file (mode 0600), deleted when the spool is closed or
collected. Each reader opens it afresh, so readers never share a file offset.
"""

from __future__ import annotations

import shutil
import tempfile
from typing import BinaryIO


class ReportSpool:
    def __init__(self) -> None:
        self._file = tempfile.NamedTemporaryFile(prefix="vpr-report-", suffix=".tmp")  # noqa: SIM115 (lives as long as the spool)
        self.size = 0

    def write(self, data: bytes) -> None:
        self._file.write(data)
        self.size += len(data)

    def open(self) -> BinaryIO:
        """A new reader from byte 0 (the caller closes it)."""
        self._file.flush()
        return open(self._file.name, "rb")

    def copy_to(self, sink: BinaryIO) -> None:
        with self.open() as source:
            shutil.copyfileobj(source, sink, 1024 * 1024)

    def close(self) -> None:
        self._file.close()
