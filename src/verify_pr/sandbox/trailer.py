"""Find and check the wrapper's nonce-bearing trailer at the end of stdout, as it streams.

The trailer is ``\\nVPR1 <nonce> <KIND> <code> <report-state> <length>\\n`` then the report
bytes, then ``\\nVPR1 <nonce> END\\n`` as the very last bytes. The check never sees the nonce,
so the first header carrying it is the wrapper's; from there the scanner counts the report's
bytes into a spool on disk (never into memory) and expects the end marker, then end of file.

A run that asked for coverage data (``--coverage``) has a second section between the report
and the end marker, ``\\nVPR1 <nonce> COV <coverage-state> <length>\\n`` then its bytes, under
the same rules and into a second spool. The scanner knows whether it was asked, so a section
that is missing, or present when it was not asked, is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from verify_pr.sandbox.spool import ReportSpool


class TrailerKind(StrEnum):
    RC = "RC"
    WRAPPER = "WRAPPER"


@dataclass(frozen=True)
class Trailer:
    kind: TrailerKind
    code: str
    report_state: str
    report: ReportSpool | None
    output_end: int  # absolute stdout offset where the check's own output ends
    coverage_state: str = "none"
    coverage: ReportSpool | None = None


class TrailerError(Exception):
    """No acceptable trailer: never a pass (internal; the engine maps it to ERROR)."""


_HEADER_RE = re.compile(rb"(RC|WRAPPER) ([0-9a-z_]{1,16}) ([a-z_]{1,16}) ([0-9]{1,9})\n")
_COV_RE = re.compile(rb"([a-z_]{1,16}) ([0-9]{1,9})\n")
_HEADER_MAX = 64  # the longest header line the regex accepts, with room to spare


class _State(StrEnum):
    OUTPUT = "output"
    REPORT = "report"
    COV_HEADER = "coverage header"
    COVERAGE = "coverage"
    END = "end"
    DONE = "done"


class TrailerScanner:
    """Incremental trailer parser: fed every stdout byte once, holds O(header) bytes."""

    def __init__(self, nonce: str, report_cap: int, coverage_cap: int | None = None) -> None:
        self._header_marker = b"\nVPR1 " + nonce.encode() + b" "
        self._end_marker = b"\nVPR1 " + nonce.encode() + b" END\n"
        self._cov_marker = b"\nVPR1 " + nonce.encode() + b" COV "
        self._report_cap = report_cap
        self._coverage_cap = coverage_cap  # None: coverage was not asked for
        self._coverage_state = "none"
        self._coverage: ReportSpool | None = None
        self._state = _State.OUTPUT
        self._window = bytearray()  # OUTPUT: unsearched tail; END: end-marker bytes so far
        self._window_at = 0  # absolute offset of _window[0] in OUTPUT
        self._remaining = 0
        self._header: tuple[str, str, str] | None = None
        self._output_end = 0
        self._spool: ReportSpool | None = None
        self._error: str | None = None

    def feed(self, data: bytes) -> None:
        rest = memoryview(data)
        while rest and self._error is None:
            if self._state is _State.OUTPUT:
                rest = self._scan_output(rest)
            elif self._state in (_State.REPORT, _State.COVERAGE):
                take = min(self._remaining, len(rest))
                spool = self._spool if self._state is _State.REPORT else self._coverage
                if spool is not None:  # always, for a returned file
                    spool.write(bytes(rest[:take]))
                self._remaining -= take
                rest = rest[take:]
                if not self._remaining:
                    self._state = self._after(self._state)
            elif self._state is _State.COV_HEADER:
                rest = self._scan_cov_header(rest)
            elif self._state is _State.END:
                rest = self._scan_end(rest)
            else:
                self._error = "output continued after the wrapper's final sentinel"

    def _scan_output(self, data: memoryview) -> memoryview:
        self._window += data
        start = self._window.find(self._header_marker)
        if start < 0:
            keep = len(self._header_marker) - 1
            drop = max(0, len(self._window) - keep)
            del self._window[:drop]
            self._window_at += drop
            return memoryview(b"")
        line_at = start + len(self._header_marker)
        newline = self._window.find(b"\n", line_at, line_at + _HEADER_MAX)
        if newline < 0:
            if len(self._window) - line_at >= _HEADER_MAX:
                self._error = "sentinel header malformed"
            del self._window[:start]
            self._window_at += start
            return memoryview(b"")
        self._output_end = self._window_at + start
        match = _HEADER_RE.fullmatch(bytes(self._window[line_at : newline + 1]))
        rest = memoryview(bytes(self._window[newline + 1 :]))
        self._window.clear()
        if match is None:
            self._error = "sentinel header malformed"
            return rest
        kind, code, state, length = (g.decode() for g in match.groups())
        self._header = (kind, code, state)
        self._remaining = int(length)
        if state != "returned" and self._remaining:
            self._error = "report bytes sent for a report that was not returned"
        elif self._remaining > self._report_cap:
            self._error = f"the report's length is over the {self._report_cap}-byte cap"
        elif state == "returned":
            self._spool = ReportSpool()
        self._state = _State.REPORT if self._remaining else self._after(_State.REPORT)
        return rest

    def _after(self, section: _State) -> _State:
        """What follows the report: the coverage section when it was asked for, else the end."""
        if section is _State.REPORT and self._coverage_cap is not None:
            return _State.COV_HEADER
        return _State.END

    def _scan_cov_header(self, data: memoryview) -> memoryview:
        """The coverage section's header line, right after the report's bytes."""
        marker = self._cov_marker
        self._window += data
        size = len(self._window)
        if not (marker.startswith(self._window[: len(marker)])):
            self._error = "the coverage section is missing after the report"
            return memoryview(b"")
        newline = self._window.find(b"\n", len(marker), len(marker) + _HEADER_MAX)
        if newline < 0:
            if size - len(marker) >= _HEADER_MAX:
                self._error = "coverage header malformed"
            return memoryview(b"")
        match = _COV_RE.fullmatch(bytes(self._window[len(marker) : newline + 1]))
        rest = memoryview(bytes(self._window[newline + 1 :]))
        self._window.clear()
        if match is None:
            self._error = "coverage header malformed"
            return rest
        state, length = (g.decode() for g in match.groups())
        self._coverage_state = state
        self._remaining = int(length)
        cap = self._coverage_cap or 0
        if state != "returned" and self._remaining:
            self._error = "coverage bytes sent for coverage data that was not returned"
        elif self._remaining > cap:
            self._error = f"the coverage data's length is over the {cap}-byte cap"
        elif state == "returned":
            self._coverage = ReportSpool()
        self._state = _State.COVERAGE if self._remaining else _State.END
        return rest

    def _scan_end(self, data: memoryview) -> memoryview:
        take = min(len(self._end_marker) - len(self._window), len(data))
        self._window += data[:take]
        if not self._end_marker.startswith(self._window):
            self._error = "report length disagrees with the bytes between the sentinels"
        elif len(self._window) == len(self._end_marker):
            self._state = _State.DONE
        return data[take:]

    def result(self) -> Trailer:
        """The trailer, once the stream has ended; TrailerError if it is not acceptable."""
        if self._error is None and self._state is not _State.DONE:
            self._error = {
                _State.OUTPUT: "no sentinel with this run's nonce: the wrapper did not finish",
                _State.REPORT: "report length disagrees with the bytes between the sentinels",
                _State.COV_HEADER: "the coverage section is missing after the report",
                _State.COVERAGE: "coverage length disagrees with the bytes between the sentinels",
                _State.END: "report length disagrees with the bytes between the sentinels",
            }[self._state]
        if self._error is not None:
            self.discard()
            raise TrailerError(self._error)
        if self._header is None:  # pragma: no cover - DONE is reached only after a header
            raise TrailerError("sentinel header missing")
        kind, code, state = self._header
        return Trailer(
            kind=TrailerKind(kind),
            code=code,
            report_state=state,
            report=self._spool if state == "returned" else None,
            output_end=self._output_end,
            coverage_state=self._coverage_state,
            coverage=self._coverage if self._coverage_state == "returned" else None,
        )

    def discard(self) -> None:
        for spool in (self._spool, self._coverage):
            if spool is not None:
                spool.close()
        self._spool = self._coverage = None
