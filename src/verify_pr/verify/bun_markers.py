"""bun's expected-failure markers, failed closed: a test whose status could be inverted is no proof.

jest and vitest say a test's ``failing``/``fails`` flag through our recorders; bun's JUnit report
has no such field and bun has no hook that exposes it, so the line reader
(``expected_failures``) is all bun has, and a marker hidden from the line (``const { failing }
= test``, ``const {failing: f} = test``, an alias, ``test["failing"]``) made a plain test of an
inverted one: a test whose body passes on base's code and fails on head's then "turned green".
So under bun, a FAIL_TO_PASS test in a file that refers to ``failing`` or ``todo`` anywhere, or
looks a member of ``test``/``it``/``describe`` up by a computed name, proves nothing (the
``pairing`` discounts it, naming why). The file read is the PR's version (tests are the PR's on
both sides); one that cannot be read is doubtful too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from verify_pr.sandbox import tree_files

_DOUBT = re.compile(rb"failing|todo|\b(?:test|it|describe)\s*\[")
MAX_BYTES = 8 << 20
WHY = (
    "bun reports no expected-failure marker and its file refers to failing or todo (or looks "
    "a test function up by a computed name): its status could be inverted"
)


def doubtful(tree: Path, files: Iterable[str | None]) -> dict[str, str]:
    """Each of ``files`` (test files of a bun run, repo-relative) whose text leaves a
    ``failing``/``todo`` marker possible, with why."""
    found: dict[str, str] = {}
    for file in sorted({f for f in files if f}):
        read = tree_files.read_capped(tree / file, MAX_BYTES) if _plain(file) else None
        if read is None or read[1] or _DOUBT.search(read[0]):
            found[file] = WHY
    return found


def _plain(file: str) -> bool:
    parts = file.split("/")
    return not file.startswith("/") and ".." not in parts and "\0" not in file
