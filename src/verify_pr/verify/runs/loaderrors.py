"""How a test file failed to load, from a JUnit report's body text.

pytest writes a collection error as ``<error message="collection failure">`` with the real
error (``E   ImportError: cannot import name ...``) only in the element's text, which the
report model does not keep. The comparison shows it as the proof's failure on base's code.
The report was already parsed strictly (size, depth, no DTD); this reads it again for that text.
"""

from __future__ import annotations

import io
from typing import BinaryIO

from defusedxml import ElementTree

from verify_pr.models.report import MESSAGE_MAX_CHARS
from verify_pr.sandbox.spool import ReportSpool

_MAX_FILES = 1000


def load_error_texts(report: ReportSpool | bytes | None) -> dict[str, str]:
    """file -> the last ``E`` line (else the last line) of each collection error's text.

    Streamed (one testcase at a time): a report of real size is never held in memory.
    """
    if report is None:
        return {}
    stream: BinaryIO = io.BytesIO(report) if isinstance(report, bytes) else report.open()
    with stream:
        try:
            return _texts(stream)
        except (ElementTree.ParseError, ValueError):  # no extra text: the messages stay
            return {}


def _texts(stream: BinaryIO) -> dict[str, str]:
    found: dict[str, str] = {}
    events = ElementTree.iterparse(stream, events=("end",), forbid_dtd=True, forbid_entities=True)
    for _, element in events:
        if element.tag != "testcase":
            continue
        file = element.get("file")
        if file and not element.get("classname") and len(found) < _MAX_FILES:
            for error in element.iter("error"):
                lines = [ln.strip() for ln in (error.text or "").splitlines() if ln.strip()]
                marked = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
                text = (marked or lines or [""])[-1]
                if text:
                    found[file] = text[:MESSAGE_MAX_CHARS]
        element.clear()
    return found
