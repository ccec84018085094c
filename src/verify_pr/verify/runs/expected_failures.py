"""Tests marked to fail, read from their lines: the second signal beside the runner's own.

jest's and bun's ``test.failing`` and vitest's ``test.fails`` are written as plain passes when
their body fails (seen in jest 29, vitest 3 and bun 1.x), and so is pytest's non-strict XPASS
when pytest runs under the caller's own command. Under verify-pr's own commands the runner says
it itself: pytest's bootstrap marks xfails in the report, and jest's and vitest's recorders
(``runners/node/failing_recorder.py``) write each test's flag from the runner's state, which no
spelling of the marker hides. bun exposes no such flag: this reader is all it has.

Each passing testcase's own line in the tree is read, as data (for a Python test, with the
decorators above it), and a test declared there with such a marker becomes an expected
failure: never a pass. It only adds expected failures to what the report says (a union), so a
record forged to ``false`` cannot take back what the line declares; a marker hidden from the
line (destructured, aliased, split across lines) is the recorders' to catch.
"""

from __future__ import annotations

import re
from pathlib import Path

from verify_pr.models.report import TestCase, TestReport, TestStatus
from verify_pr.runners import _files
from verify_pr.sandbox import tree_files

# `.failing`/`.fails` after a test function (test.failing, it.fails, test.failing.each...),
# or looked up by a quoted name.
MARKER = re.compile(rb"\.\s*(?:failing|fails)\b|\[\s*['\"`](?:failing|fails)['\"`]\s*\]")
# pytest's marker in a decorator above the def: @pytest.mark.xfail, @xfail, ...
PY_MARKER = re.compile(rb"\bxfail\b")
MAX_DECORATOR_LINES = 30
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_FILES = 20_000  # distinct test files read per report (the walk's own cap)


class _Lines:
    """Test files' lines, read once each, only inside the tree (links resolved, never out)."""

    def __init__(self, tree: Path) -> None:
        self.root = tree.resolve()
        self.seen: dict[str, list[bytes] | None] = {}

    def lines(self, file: str) -> list[bytes] | None:
        if file not in self.seen:
            self.seen[file] = self._read(file) if len(self.seen) < MAX_FILES else None
        return self.seen[file]

    def _read(self, file: str) -> list[bytes] | None:
        try:
            path = (self.root / file).resolve()
        except (OSError, RuntimeError, ValueError):
            return None
        if not path.is_relative_to(self.root):
            return None
        data = _files.read_nested_bytes(self.root, str(path.relative_to(self.root)), MAX_FILE_BYTES)
        return None if data is None else data.splitlines()


def mark(report: TestReport, tree: Path) -> TestReport:
    """The report with every passing test that its line declares as expected to fail marked
    so; the same report when there is none."""
    lines = _Lines(tree)
    cases: list[TestCase] = []
    changed = False
    for case in report.testcases:
        if _declared_failing(case, lines):
            case = case.model_copy(update={"status": TestStatus.EXPECTED_FAILURE})
            changed = True
        cases.append(case)
    if not changed:
        return report
    return TestReport.build(
        format=report.format,
        testcases=cases,
        red_flags=report.red_flags,
        runner=report.runner,
        runner_version=report.runner_version,
    )


def _declared_failing(case: TestCase, files: _Lines) -> bool:
    if case.status is not TestStatus.PASSED or not case.file or case.line is None:
        return False
    try:
        lines = files.lines(case.file)
    except ValueError:  # not a repo-relative path
        return False
    if lines is None or not 1 <= case.line <= len(lines):
        return False
    if case.file.endswith(".py"):
        return any(PY_MARKER.search(line) for line in _decorators(lines, case.line - 1))
    return MARKER.search(lines[case.line - 1]) is not None


def _decorators(lines: list[bytes], at: int) -> list[bytes]:
    """The decorator block above the ``def`` at index ``at``: ``@`` lines at the def's indent,
    with the lines of a decorator that spans several (deeper lines count only once an ``@``
    line above them claims them, so the previous function's body is never read)."""
    indent = _indent(lines[at])
    block: list[bytes] = []
    pending: list[bytes] = []
    for line in reversed(lines[max(0, at - MAX_DECORATOR_LINES) : at]):
        text = line.strip()
        if not text or _indent(line) < indent:
            break
        if _indent(line) > indent or text.startswith((b")", b"]")):
            pending.append(line)
        elif text.startswith(b"@"):
            block += [*pending, line]
            pending = []
        else:
            break  # the previous statement at the def's level
    return block


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip())


# Markers that make a failing test count as a pass (or hide it), for compare: pytest xfail,
# jest test.failing, vitest test.fails, and todo.
_MARKERS = re.compile(rb"\bxfail\b|\.failing\b|\.fails\b|\.todo\b")
_MARKER_FILE_CAP = 4 << 20


def added_markers(base_tree: Path, after_tree: Path, tests: list[str]) -> list[str]:
    """Test files where the PR adds expected-failure markers (counted, base against after)."""
    found = []
    for path in tests:
        if _count_markers(after_tree, path) > _count_markers(base_tree, path):
            found.append(path)
    return found


def _count_markers(tree: Path, path: str) -> int:
    read = tree_files.read_capped(tree / path, _MARKER_FILE_CAP)
    return 0 if read is None else len(_MARKERS.findall(read[0]))
