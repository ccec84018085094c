"""Host-side capture of the container's attached streams.

The attach socket carries Docker's multiplexed frames (8-byte header: stream id, three zero
bytes, big-endian length). The host keeps the first ``head_limit`` bytes of stdout and feeds
every byte to the trailer scanner, which spools the report to disk; the rest is drained, so a
flood can neither block the container nor grow the host's memory.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from verify_pr.contract import MAX_COVERAGE_BYTES, MAX_REPORT_BYTES
from verify_pr.sandbox.trailer import Trailer, TrailerError, TrailerScanner

STDERR_KEEP = 64 * 1024
_HEADER = struct.Struct(">BxxxL")


@dataclass
class StreamCapture:
    """Bounded memory of an unbounded stdout, plus a short stderr."""

    head_limit: int
    nonce: str
    coverage: bool = False  # the run asked for coverage data: the trailer has its section
    head: bytearray = field(default_factory=bytearray)
    total: int = 0
    stderr: bytearray = field(default_factory=bytearray)
    scanner: TrailerScanner = field(init=False)

    def __post_init__(self) -> None:
        cov_cap = MAX_COVERAGE_BYTES if self.coverage else None
        self.scanner = TrailerScanner(self.nonce, MAX_REPORT_BYTES, cov_cap)

    def add_stdout(self, data: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
        self.scanner.feed(data)
        self.total += len(data)

    def add_stderr(self, data: bytes) -> None:
        room = STDERR_KEEP - len(self.stderr)
        if room > 0:
            self.stderr += data[:room]


@dataclass
class FrameDemuxer:
    """Incremental parser of Docker's stdout/stderr frames."""

    sink: StreamCapture
    _buf: bytearray = field(default_factory=bytearray)
    _want: int = 0
    _stream: int = 0

    def feed(self, data: bytes) -> None:
        self._buf += data
        buf = self._buf
        pos = 0
        while True:
            if self._want == 0:
                if len(buf) - pos < _HEADER.size:
                    break
                self._stream, self._want = _HEADER.unpack_from(buf, pos)
                pos += _HEADER.size
                continue
            take = min(self._want, len(buf) - pos)
            if take == 0:
                break
            chunk = bytes(buf[pos : pos + take])
            if self._stream == 2:
                self.sink.add_stderr(chunk)
            else:
                self.sink.add_stdout(chunk)
            pos += take
            self._want -= take
        del buf[:pos]


def parse_trailer(capture: StreamCapture, nonce: str) -> Trailer:
    """The trailer the capture's scanner found, for the run whose nonce this is."""
    if capture.nonce != nonce:
        raise TrailerError("the capture was made for another run's nonce")
    return capture.scanner.result()
