"""The run CLI's few lines for a terminal: plain text, every string from the PR escaped."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from verify_pr.models.report import clean_text
from verify_pr.models.verdict import VerdictFile
from verify_pr.render.verdicts import label, run_meaning


def run_summary(verdict: VerdictFile, out: Path) -> str:
    """A few lines for a human: the verdict and its meaning, runner, counts, reasons, files."""
    version = shown(verdict.runner_version or "")
    lines = [
        f"{label(verdict.verdict)}: {run_meaning(verdict.verdict)}",
        f"runner: {shown(verdict.runner)} {version}".rstrip(),
    ]
    if verdict.totals:
        t = verdict.totals
        lines.append(
            f"tests: {t.total} total, {t.passed} passed, {t.failed} failed, {t.error} errors, "
            f"{t.skipped} skipped, {t.expected_failure} expected to fail"
        )
    lines += [f"- {shown(reason)}" for reason in verdict.reasons]
    lines.append(f"files: {out}")
    return "\n".join(lines)


def uncommitted_warning(status: Sequence[bytes], examples: int = 3) -> str | None:
    """One line when ``git status --porcelain`` lines show edits compare will not see."""
    if not status:
        return None
    untracked = sum(1 for line in status if line.startswith(b"??"))
    paths = ", ".join(shown(os.fsdecode(line[3:])) for line in status[:examples])
    more = ", ..." if len(status) > examples else ""
    return (
        f"the --git work tree has uncommitted changes ({len(status) - untracked} changed, "
        f"{untracked} untracked: {paths}{more}); compare reads commits only, so they are not "
        "part of it: commit them to include them"
    )


def shown(text: str) -> str:
    """One terminal line: controls and bidi escaped, and newlines too (no forged lines)."""
    escaped = clean_text(text, len(text) * 6 + 1)
    return escaped.replace("\n", "\\n").replace("\t", "\\t")
