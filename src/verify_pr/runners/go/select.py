"""Selection by id for ``go test``: ``-run`` with one anchored pattern per level of the test's
name, and the test's package (the report's ``file``: its import path, which ``go test`` takes as
a package of the main module).

``TestA/case`` selects with ``-run '^TestA$/^case$'``: the go command splits the pattern on its
unbracketed slashes and matches each part against that level of the name, so the parent runs
with that one subtest, and every level below it runs whole. Several tests at once: where they
all have the same depth, each level is an alternation of the names at that level (a test of
one and a subtest of the other may run too: a selected id always runs whole, with nothing
below it filtered out); where the depths differ, the top-level tests run whole. The test's
name and package come from the report (untrusted text): anything that is not a plain name or
import path selects nothing (None: the caller says so).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from verify_pr.models.report import TestCase
from verify_pr.reports.go_json import LOAD_ERROR_NAME

# RE2's metacharacters: each is matched literally when escaped with a backslash
_META = frozenset("\\.+*?()|[]{}^$")
# an import path as the go command accepts one of the main module's packages: no leading
# "-" (a flag), no space or shell text (the argv is quoted anyway), at most one "..."-free path
_IMPORT_PATH = re.compile(r"[A-Za-z0-9_~+][A-Za-z0-9_.~+/-]{0,499}")
MAX_NAME = 1000
MAX_TESTS = 200  # a longer -run pattern gains nothing over running the packages whole


def _levels(case: TestCase) -> list[str] | None:
    """The test's name split into its levels, or None when it is no test's name as go writes
    one (go replaces spaces in subtest names with "_" and escapes what is not printable)."""
    name = case.name
    if name == LOAD_ERROR_NAME or not name or len(name) > MAX_NAME:
        return None
    if not name.isprintable() or any(ch.isspace() for ch in name):
        return None
    levels = name.split("/")
    return None if any(not level for level in levels) else levels


def _package(case: TestCase) -> str | None:
    path = case.file or ""
    if not _IMPORT_PATH.fullmatch(path) or "..." in path or "//" in path:
        return None
    return path


def _literal(level: str) -> str:
    return "".join(f"\\{ch}" if ch in _META else ch for ch in level)


def _anchored(names: Sequence[str]) -> str:
    unique = list(dict.fromkeys(_literal(n) for n in names))
    return f"^{unique[0]}$" if len(unique) == 1 else f"^({'|'.join(unique)})$"


def select(case: TestCase) -> tuple[str, ...] | None:
    return select_batch([case])


def select_batch(cases: Sequence[TestCase]) -> tuple[str, ...] | None:
    """``-run PATTERN PACKAGE...`` that runs every one of ``cases`` whole (see the module's
    docstring); None when one of them cannot be named."""
    if not cases or len(cases) > MAX_TESTS:
        return None
    levels, packages = [], []
    for case in cases:
        split, package = _levels(case), _package(case)
        if split is None or package is None:
            return None
        levels.append(split)
        packages.append(package)
    depths = {len(split) for split in levels}
    depth = depths.pop() if len(depths) == 1 else 1
    pattern = "/".join(_anchored([split[i] for split in levels]) for i in range(depth))
    return ("-run", pattern, *dict.fromkeys(packages))
