"""What the check's own output says went wrong, for reasons a maintainer can act on: the first
error line (capped, escaped) and a module that could not be imported. The output is untrusted:
both are hints beside the verdict, never evidence for it."""

from __future__ import annotations

import re

from verify_pr.models.report import clean_text

LINE_MAX_CHARS = 200
_SCAN_BYTES = 256 * 1024  # the start of the output: the first error is near the top

_MODULE = re.compile(
    rb"(?:No module named|Cannot find module|Cannot find package) ['\"]?([^'\"\s]{1,200})"
)
# pytest marks the error lines of a traceback with "E   "; other runners and Python itself
# write "<Name>Error: ..." or "ERROR ..." lines.
_MARKED = re.compile(rb"^E {2,}(\S[^\n]*)", re.M)
_GENERIC = re.compile(
    rb"^[ \t]*((?:[A-Za-z_][\w.]*(?:Error|Exception)\b|ERROR\b|Error:|ImportError while)[^\n]*)",
    re.M,
)


def _shown(raw: bytes) -> str:
    return clean_text(raw.decode("utf-8", "replace").strip(), LINE_MAX_CHARS)


def first_error_line(output: bytes) -> str | None:
    """The first line that reads as an error, capped and with controls escaped."""
    head = output[:_SCAN_BYTES]
    for pattern in (_MARKED, _GENERIC):
        match = pattern.search(head)
        if match is not None and match.group(1).strip():
            return _shown(match.group(1))
    return None


def missing_module(output: bytes) -> str | None:
    """The first module the output says could not be found (Python or Node), escaped."""
    match = _MODULE.search(output[:_SCAN_BYTES])
    return _shown(match.group(1)) if match is not None else None
