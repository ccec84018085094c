"""Which test files a run could not load, as both jobs read it from the testcases.

The verifier forgives a head run's load failure only when it predates the PR
(``verify.unloaded``); the publish job re-derives the same from the artifact's testcases
(``policy``). Both read the load failures here, so they cannot disagree on what
one is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from verify_pr.contract import WORK_DIR
from verify_pr.models.report import FAILING, TestCase, TestStatus, is_load_failure

# pytest's message for a module that failed to import (junit's _PYTEST_COLLECTION_FAILURE)
COLLECTION_FAILURE = "collection failure"
MAX_PATHS_SEARCHED = 5000  # more changed paths than this: an error text names "one of them"


def may_be_load_failure(case: TestCase) -> bool:
    """A failing testcase that may stand for a file that failed to load, widely: the runner's
    stand-in, or an error pytest calls a collection failure under any class name."""
    if case.status not in FAILING:
        return False
    if is_load_failure(case):
        return True
    return case.status is TestStatus.ERROR and (case.message or "").startswith(COLLECTION_FAILURE)


def load_failed_files(
    cases: Iterable[TestCase], texts: Mapping[str, str] | None = None
) -> dict[str, str] | None:
    """file -> load error text (``texts`` when it has the file, else the case's message) of
    each file that failed to load; None when one such failure names no file."""
    found: dict[str, str] = {}
    for case in cases:
        if not may_be_load_failure(case):
            continue
        if not case.file:
            return None
        text = (texts or {}).get(case.file) or case.message or ""
        seen = found.get(case.file)
        # two stand-ins of one file with different texts: both kept, in a stable order
        found[case.file] = text if seen in (None, text) else "\n".join(sorted({seen or "", text}))
    return found


def names_path(text: str, paths: Sequence[str]) -> str | None:
    """The first of ``paths`` the error text names as a path (whole, not inside a longer
    name: ``package.json`` is not named by ``node_modules/x/package.json``)."""
    if len(paths) > MAX_PATHS_SEARCHED:
        return f"one of {len(paths)} paths (too many to search)"
    for path in paths:
        if path and _named(path).search(text):
            return path
    return None


def _named(path: str) -> re.Pattern[str]:
    # the sandbox's absolute path (pytest), or a relative one after a non-path character (jest)
    return re.compile(rf"(?:{re.escape(WORK_DIR)}/|(?<![\w./@-])){re.escape(path)}(?![\w/-])")
