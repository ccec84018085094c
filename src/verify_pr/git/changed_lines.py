"""The lines a PR adds or changes in each of its files, from ``git diff -U0``'s hunk headers.

Only the headers are read (``@@ -a,b +c,d @@``): the new side's ``c..c+d-1`` are the changed
lines in the after tree's numbering. The diff runs in the hardened shadow repository, never
under the PR's own git config (``HardenedGit``).
"""

from __future__ import annotations

import re
from pathlib import Path

from verify_pr.git.hardened import HardenedGit

_HUNK = re.compile(rb"^@@ -[0-9]+(?:,[0-9]+)? \+([0-9]+)(?:,([0-9]+))? @@", re.MULTILINE)
MAX_FILES = 200  # the changed code files measured
MAX_LINES = 100_000  # a file's changed lines kept (models.coverage.MAX_FILE_LINES)


def parse_hunks(diff: bytes) -> tuple[int, ...]:
    """Every new-side line number the hunks of one file's ``-U0`` diff name, ascending."""
    lines: set[int] = set()
    for match in _HUNK.finditer(diff):
        start = int(match.group(1))
        count = 1 if match.group(2) is None else int(match.group(2))
        lines.update(range(start, start + count))
    return tuple(sorted(lines)[:MAX_LINES])


def changed_lines(
    git_dir: Path, base: str, after: str, paths: list[str]
) -> dict[str, tuple[int, ...]]:
    """For each of ``paths`` (at most ``MAX_FILES``): its changed lines from ``base`` to
    ``after`` (a commit, or a merge result's tree)."""
    fmt = "sha256" if len(base) == 64 else "sha1"
    with HardenedGit(git_dir, object_format=fmt) as git:
        return {p: parse_hunks(git.added_lines_diff(base, after, p)) for p in paths[:MAX_FILES]}
