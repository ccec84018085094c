"""Pieces every Markdown summary shares: counts, failing tests, flipped tests, harness files.

Every string from the PR goes through ``verify_pr.markdown`` (escaped, mentions neutralised).
"""

from __future__ import annotations

from collections.abc import Sequence

from verify_pr.markdown import escape_inline, table
from verify_pr.models.compare import CompareResult, Transition, TransitionCounts
from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.verdict import VerdictFile

FLIPS_SHOWN = (Transition.FAIL_TO_PASS, Transition.PASS_TO_FAIL, Transition.REMOVED)
MAX_FLIP_ROWS = 50
ID_CHARS = 300

Listed = Sequence[tuple[str, Sequence[str]]]
"""What stands against the PR: (title, test ids) in the order shown; an empty list is left
out (the summary and the terminal lines show the same lists)."""


def bullets(items: Sequence[str]) -> list[str]:
    """One escaped bullet per item."""
    return [f"- {escape_inline(item)}" for item in items]


def totals_table(totals: Totals) -> str:
    t = totals
    return table(
        ("total", "passed", "failed", "errors", "skipped", "expected to fail"),
        [
            (
                str(t.total),
                str(t.passed),
                str(t.failed),
                str(t.error),
                str(t.skipped),
                str(t.expected_failure),
            )
        ],
    )


def failing(verdict: VerdictFile) -> list[TestCase]:
    return [c for c in verdict.testcases if c.status in (TestStatus.FAILED, TestStatus.ERROR)]


def failing_table(cases: Sequence[TestCase], max_rows: int, message_chars: int) -> str:
    rows = [
        (c.name, c.file or "", str(c.line or ""), (c.message or "")[:message_chars])
        for c in cases[:max_rows]
    ]
    return table(("test", "file", "line", "message"), rows)


def flip_sections(result: CompareResult) -> list[str]:
    """A table of test ids per flip that matters (FAIL_TO_PASS, PASS_TO_FAIL, REMOVED)."""
    lines: list[str] = []
    for kind in FLIPS_SHOWN:
        ids = [t.id for t in result.transitions if t.transition is kind]
        if ids:
            lines += [f"### {kind.value} ({len(ids)})", ""]
            lines.append(table(("test",), [(i[:ID_CHARS],) for i in ids[:MAX_FLIP_ROWS]]))
            if len(ids) > MAX_FLIP_ROWS:
                lines += [f"… and {len(ids) - MAX_FLIP_ROWS} more.", ""]
    return lines


def harness_section(result: CompareResult) -> list[str]:
    """The harness files the PR changes, as a table (empty when there are none)."""
    files = result.harness_files_changed
    if not files:
        return []
    return [
        f"### Harness files changed by the PR ({len(files)})",
        "",
        table(("file",), [(f[:ID_CHARS],) for f in files[:MAX_FLIP_ROWS]]),
    ]


def transition_counts(c: TransitionCounts) -> list[tuple[str, int]]:
    """The comparison's counts by name, every transition, expected failures too."""
    return [
        ("FAIL→PASS", c.fail_to_pass),
        ("PASS→FAIL", c.pass_to_fail),
        ("PASS→PASS", c.pass_to_pass),
        ("FAIL→FAIL", c.fail_to_fail),
        ("added", c.added),
        ("removed", c.removed),
        ("skipped", c.skipped),
        ("expected to fail", c.expected_failure),
    ]


def transition_counts_table(c: TransitionCounts) -> str:
    """The comparison's counts, one row."""
    counts = transition_counts(c)
    return table(tuple(name for name, _ in counts), [tuple(str(n) for _, n in counts)])
