"""jest's istanbul JSON (coverage-final.json from its V8 provider) as line sets.

The V8 provider maps every source line to a "statement" (blank lines, comments and closing
braces included), so the executable lines are those statements whose text is code: read from
the after tree on the host (reading, never running). A line inside a function's range (after
its first line) is a function line; the rest (declarations, module-level code) runs on import.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from verify_pr.contract import WORK_DIR
from verify_pr.verify.coverage.lines import FileLines, LineData

_NOT_CODE = re.compile(r"\s*(?://.*|/\*.*|\*.*|[})\];,]*)\s*")
MAX_SOURCE_BYTES = 4 << 20


class IstanbulError(ValueError):
    """Not the istanbul JSON jest writes (internal; reported as refused data)."""


def _line(pos: object) -> int:
    if not isinstance(pos, dict) or type(pos.get("line")) is not int or pos["line"] < 1:
        raise IstanbulError("a location without a line")
    return int(pos["line"])


def _map(entry: dict[str, Any], key: str) -> dict[str, Any]:
    value = entry.get(key)
    if not isinstance(value, dict):
        raise IstanbulError(f"no {key} in the coverage data")
    return value


def _code_lines(tree: Path, path: str) -> set[int]:
    try:
        with open(tree / path, "rb") as handle:
            text = handle.read(MAX_SOURCE_BYTES).decode("utf-8", "replace")
    except OSError:
        return set()
    return {n for n, line in enumerate(text.splitlines(), 1) if not _NOT_CODE.fullmatch(line)}


def parse_istanbul(doc: dict[str, Any], files: list[str], tree: Path) -> LineData:
    """Line sets for ``files`` (repo-relative) from jest's ``coverage-final.json``."""
    wanted = {f"{WORK_DIR}/{f}": f for f in files}
    parsed: dict[str, FileLines] = {}
    for key, entry in doc.items():
        rel = wanted.get(key)
        if rel is None or not isinstance(entry, dict):
            raise IstanbulError("the coverage data names files that were not measured")
        statements, counts, functions = (
            _map(entry, "statementMap"),
            _map(entry, "s"),
            _map(entry, "fnMap"),
        )
        seen: set[int] = set()
        run: set[int] = set()
        for sid, loc in statements.items():
            count = counts.get(sid)
            if type(count) is not int or not isinstance(loc, dict):
                raise IstanbulError(f"{rel}: a statement without a count")
            first, last = _line(loc.get("start")), _line(loc.get("end"))
            span = range(first, min(last, first + 10_000) + 1)
            seen.update(span)
            if count > 0:
                run.update(span)
        inside: set[int] = set()
        for fn in functions.values():
            loc = fn.get("loc") if isinstance(fn, dict) else None
            if not isinstance(loc, dict):
                raise IstanbulError(f"{rel}: a function without a location")
            first, last = _line(loc.get("start")), _line(loc.get("end"))
            inside.update(range(first + 1, min(last, first + 100_000) + 1))
        executable = seen & _code_lines(tree, rel)
        parsed[rel] = FileLines(frozenset(executable), frozenset(inside), frozenset(run))
    return LineData("jest v8 (node)", parsed)
