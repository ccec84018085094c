"""Cut text to a byte budget on a UTF-8 character boundary, leaving room for a notice.

GitHub enforces its size limits (check-run summary and text, the job summary) in **bytes**,
so a cut by characters can still be refused; a cut in the middle of a multi-byte sequence
would leave invalid UTF-8. Both the Actions I/O writer and the Markdown renderer use this.
"""

from __future__ import annotations


def utf8_len(text: str) -> int:
    """Size of ``text`` encoded as UTF-8."""
    return len(text.encode("utf-8"))


def cut_utf8(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 encoding fits in ``max_bytes``."""
    if max_bytes < 0:
        raise ValueError("max_bytes must not be negative")
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    # errors="ignore" drops only the partial sequence at the end of the slice.
    return data[:max_bytes].decode("utf-8", errors="ignore")


def fit_utf8(text: str, max_bytes: int, notice: str) -> tuple[str, bool]:
    """``text`` if it fits, else a prefix plus ``notice``, the whole within ``max_bytes``.

    Returns the text and whether it was cut. The notice is itself cut when the budget is
    smaller than the notice, so the result never exceeds ``max_bytes``.
    """
    if utf8_len(text) <= max_bytes:
        return text, False
    room = max_bytes - utf8_len(notice)
    if room < 0:
        return cut_utf8(notice, max_bytes), True
    return cut_utf8(text, room) + notice, True
