"""Markdown that is safe to show: escaping, fitting and tables for untrusted strings; no I/O.

Anything from the artifact (test names, messages, output) is attacker-controlled. Inline text
goes through ``escape_inline``: Markdown punctuation is backslash-escaped, newlines become
``<br>``, and ``@`` / ``#`` / ``GH-<n>`` get a zero-width joiner so GitHub, which finds mentions
and issue references in the *rendered* text, notifies nobody and links no issue. ``://`` and
``www.`` are broken the same way so no attacker-controlled link is autolinked. Raw output goes
in a fenced block whose fence is longer than any backtick run inside it; GitHub does not look
for mentions inside code. Every helper first makes control characters, bidi overrides and
invisible format characters visible as ``\\xNN`` / ``\\uNNNN`` (``visible``), so no string can
reorder or hide the text around it; terminal colour sequences are dropped from output.
``fit_markdown`` cuts a document to GitHub's byte limit (65535 **bytes** for a check run's
``output.summary`` and ``output.text``) on a UTF-8 boundary, closes a fence the cut left open,
and appends a notice, all within the limit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verify_pr.utf8 import cut_utf8, utf8_len

CHECK_RUN_TEXT_MAX_BYTES = 65535
"""GitHub's limit for ``output.summary`` and for ``output.text``, enforced in bytes."""
TRUNCATED_NOTICE = "\n\n*verify-pr: output truncated to fit GitHub's size limit.*\n"

ZWJ = "\u200d"
_ESCAPED = frozenset("|\\`*_[]<>&~")
_NEUTRALISED = (
    ("@", "@" + ZWJ),
    ("#", "#" + ZWJ),
    ("://", ":" + ZWJ + "//"),
    ("www.", "www" + ZWJ + "."),
)
_GH_REFERENCE = re.compile(r"(?i)(gh)(-\d)")
# C0 (but tab, newline, carriage return), DEL, C1, bidi marks, embeddings, overrides and
# isolates, line/paragraph separators and invisible format characters (not ZWJ/ZWNJ: emoji).
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
_TERMINAL_SEQUENCE = re.compile("\x1b\\[[0-?]*[ -/]*[@-~]")
_NEWLINES = re.compile(r"\r\n|\r|\n")
_BACKTICK_RUN = re.compile(r"`+")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,})")
_INFO_STRING = re.compile(r"[A-Za-z0-9_+-]{0,32}")


def _escape_code(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with controls, bidi overrides and invisible characters shown as escapes."""
    return _INVISIBLE.sub(_escape_code, text)


def escape_inline(text: str) -> str:
    """Make ``text`` inert in a paragraph, a heading or a table cell."""
    out = "".join("\\" + ch if ch in _ESCAPED else ch for ch in visible(text))
    for needle, replacement in _NEUTRALISED:
        out = out.replace(needle, replacement)
    out = _GH_REFERENCE.sub(lambda m: m.group(1) + ZWJ + m.group(2), out)
    return _NEWLINES.sub("<br>", out)


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)


def inline_code(text: str) -> str:
    """``text`` as a code span: delimiters longer than any backtick run, newlines as spaces."""
    flat = _NEWLINES.sub(" ", visible(text))
    ticks = "`" * (_longest_backtick_run(flat) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def fenced_block(text: str, info: str = "") -> str:
    """``text`` in a fenced code block that nothing inside can close."""
    if not _INFO_STRING.fullmatch(info):
        raise ValueError(f"invalid info string {info!r}")
    body = _NEWLINES.sub("\n", visible(_TERMINAL_SEQUENCE.sub("", text)))
    if body and not body.endswith("\n"):
        body += "\n"
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    return f"{fence}{info}\n{body}{fence}\n"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub table; every header and cell is escaped."""
    width = len(header)
    if width == 0 or any(len(row) != width for row in rows):
        raise ValueError("every row needs one cell per header")
    lines = [
        "| " + " | ".join(escape_inline(cell) for cell in header) + " |",
        "|" + "---|" * width,
    ]
    lines += ["| " + " | ".join(escape_inline(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _open_fence(markdown: str) -> str | None:
    """The fence of a code block that is still open at the end of ``markdown``, if any."""
    open_fence: str | None = None
    for line in markdown.split("\n"):
        match = _FENCE_LINE.match(line)
        if not match:
            continue
        fence = match.group(1)
        if open_fence is None:
            open_fence = fence
        elif len(fence) >= len(open_fence) and not line.strip().strip("`"):
            open_fence = None
    return open_fence


def fit_markdown(
    markdown: str,
    max_bytes: int = CHECK_RUN_TEXT_MAX_BYTES,
    notice: str = TRUNCATED_NOTICE,
) -> tuple[str, bool]:
    """``markdown`` within ``max_bytes``; if cut, close any open fence and add ``notice``.

    Returns the text and whether it was cut.
    """
    if utf8_len(markdown) <= max_bytes:
        return markdown, False
    closing = ""
    for _ in range(8):  # the closing fence depends on the prefix; settle in a few rounds
        room = max_bytes - utf8_len(notice) - utf8_len(closing)
        if room < 0:
            return cut_utf8(notice, max_bytes), True
        prefix = cut_utf8(markdown, room)
        fence = _open_fence(prefix)
        needed = "" if fence is None else ("" if prefix.endswith("\n") else "\n") + fence
        if utf8_len(needed) <= utf8_len(closing):
            return prefix + needed + notice, True
        closing = needed
    return cut_utf8(notice, max_bytes), True
