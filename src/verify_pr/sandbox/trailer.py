"""Find and check the wrapper's nonce-bearing trailer at the end of stdout.

The trailer is ``\\nVPR1 <nonce> <KIND> <code> <report-state> <length>\\n`` then the report
bytes, then ``\\nVPR1 <nonce> END\\n`` as the very last bytes. Only the last header carrying
this run's nonce counts; anything printed by the check cannot carry the nonce.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from verify_pr.sandbox.capture import StreamCapture


class TrailerKind(StrEnum):
    RC = "RC"
    WRAPPER = "WRAPPER"


@dataclass(frozen=True)
class Trailer:
    kind: TrailerKind
    code: str
    report_state: str
    report: bytes | None
    output_end: int  # absolute stdout offset where the check's own output ends


class TrailerError(Exception):
    """No acceptable trailer: never a pass (internal; the engine maps it to ERROR)."""


_HEADER_RE = re.compile(rb"(RC|WRAPPER) ([0-9a-z_]{1,16}) ([a-z_]{1,16}) ([0-9]{1,8})\n")


def parse_trailer(capture: StreamCapture, nonce: str) -> Trailer:
    tail = bytes(capture.tail)
    end_marker = b"\nVPR1 " + nonce.encode() + b" END\n"
    if not tail.endswith(end_marker):
        if end_marker in tail:
            raise TrailerError("output continued after the wrapper's final sentinel")
        raise TrailerError("no sentinel with this run's nonce: the wrapper did not finish")
    body_end = len(tail) - len(end_marker)
    header_marker = b"\nVPR1 " + nonce.encode() + b" "
    start = tail.rfind(header_marker, 0, body_end + 1)
    if start < 0:
        raise TrailerError("sentinel header missing")
    match = _HEADER_RE.match(tail, start + len(header_marker))
    if match is None:
        raise TrailerError("sentinel header malformed")
    kind, code, state, length = (g.decode() for g in match.groups())
    report_start = match.end()
    report_len = int(length)
    if report_start + report_len != body_end:
        raise TrailerError("report length disagrees with the bytes between the sentinels")
    report = tail[report_start:body_end] if state == "returned" else None
    if state != "returned" and report_len:
        raise TrailerError("report bytes sent for a report that was not returned")
    return Trailer(
        kind=TrailerKind(kind),
        code=code,
        report_state=state,
        report=report,
        output_end=capture.tail_offset() + start,
    )
