"""Selection by name for the JavaScript runners: a regular expression with every special
character of the report's (untrusted) names escaped, and the test's file.

jest takes ``-t`` (the full name: describe titles, then the test's) and the files as patterns
after ``--``; vitest and bun take the files as paths and ``-t`` (the test's own name). jest
alone repeats: it runs a test file as often as ``--runTestsByPath`` names it, each time in a
module registry and test environment of its own (its isolation between test files), in order
with ``--runInBand``. vitest and bun run a file once however often it is named: they re-run in
a process per repetition.
"""

from __future__ import annotations

import re

from verify_pr.models.report import TestCase
from verify_pr.runners._select import selectable
from verify_pr.runners.base import Argv

_JS_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")


def js_escape(text: str) -> str:
    return _JS_SPECIAL.sub(lambda m: "\\" + m.group(), text)


def _full_name(case: TestCase) -> str:
    return " ".join([*(case.classname.split(" > ") if case.classname else []), case.name])


def jest_select(case: TestCase) -> Argv | None:
    if not selectable(case):
        return None
    return ("-t", "^" + js_escape(_full_name(case)) + "$", "--", js_escape(case.file or ""))


def jest_batch(cases: list[TestCase]) -> Argv | None:
    """Every test of ``cases`` (and any test of the same files that shares a full name)."""
    if not cases or any(jest_select(c) is None for c in cases):
        return None
    files = list(dict.fromkeys(js_escape(c.file or "") for c in cases))
    return ("-t", _jest_names(cases), "--", *files)


def jest_repeated(cases: list[TestCase], times: int) -> Argv | None:
    if times < 1 or jest_batch(cases) is None:
        return None
    files = list(dict.fromkeys(c.file or "" for c in cases))  # exact paths, not patterns
    return ("-t", _jest_names(cases), "--runInBand", "--runTestsByPath", "--", *files * times)


def _jest_names(cases: list[TestCase]) -> str:
    """jest's ``-t`` pattern for exactly these full names (describe titles, then the test's)."""
    names = [js_escape(_full_name(c)) for c in cases]
    return "^(?:" + "|".join(dict.fromkeys(names)) + ")$"


def by_path_select(case: TestCase) -> Argv | None:
    """vitest's and bun's: the file as a path, ``-t`` the test's own name."""
    if not selectable(case):
        return None
    return (case.file or "", "-t", js_escape(case.name) + "$")


def by_path_batch(cases: list[TestCase]) -> Argv | None:
    if not cases or any(by_path_select(c) is None for c in cases):
        return None
    names = [js_escape(c.name) for c in cases]
    pattern = "(?:" + "|".join(dict.fromkeys(names)) + ")$"
    plain = list(dict.fromkeys(c.file or "" for c in cases))  # vitest and bun take paths
    return (*plain, "-t", pattern)
