"""What every runner's selection by id checks first: a testcase whose name the report changed,
or whose file is outside the tree, cannot be selected (selections: ``runners/*/select.py``)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from verify_pr.models.report import TRUNCATION_MARKER, TestCase

_ESCAPED = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4})")  # clean_text's escapes: not the real name


def selectable(case: TestCase, own_escapes: str = "") -> bool:
    """Whether ``case``'s file and names are as the runner wrote them. ``own_escapes``: the end
    of the name in which the runner itself writes escapes (pytest's parameter ids)."""
    text = f"{case.file or ''}{case.classname or ''}{case.name}"
    if TRUNCATION_MARKER in text or "\n" in text:
        return False  # the report changed the name: a selector would not find it
    if _ESCAPED.search(text[: len(text) - len(own_escapes)]):
        return False  # clean_text's escape of a character the real name holds
    path = PurePosixPath(case.file or "")
    return case.file is not None and not path.is_absolute() and ".." not in path.parts
