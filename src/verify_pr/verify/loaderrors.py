"""How a test file failed to load, from a JUnit report's body text.

pytest writes a collection error as ``<error message="collection failure">`` with the real
error (``E   ImportError: cannot import name ...``) only in the element's text, which the
report model does not keep. The comparison shows it as the proof's failure on base's code.
The report was already parsed strictly (size, depth, no DTD); this reads it again for that text.
"""

from __future__ import annotations

from defusedxml import ElementTree

from verify_pr.models.report import MESSAGE_MAX_CHARS

_MAX_FILES = 1000


def load_error_texts(report: bytes | None) -> dict[str, str]:
    """file -> the last ``E`` line (else the last line) of each collection error's text."""
    if not report:
        return {}
    try:
        root = ElementTree.fromstring(report, forbid_dtd=True, forbid_entities=True)
    except (ElementTree.ParseError, ValueError):  # no extra text: the message stays
        return {}
    found: dict[str, str] = {}
    for case in root.iter("testcase"):
        file = case.get("file")
        if not file or case.get("classname") or len(found) >= _MAX_FILES:
            continue
        for error in case.iter("error"):
            lines = [ln.strip() for ln in (error.text or "").splitlines() if ln.strip()]
            marked = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
            text = (marked or lines or [""])[-1]
            if text:
                found[file] = text[:MESSAGE_MAX_CHARS]
    return found
