"""The CLIs' lines for a person: plain text, every string from the PR escaped.

``verify-pr run`` prints ``run_summary`` whatever its stdout is. On a terminal it adds the
failing tests with their messages, line by line as the runner wrote them (pytest's diff stays
a diff). ``verify-pr compare`` prints ``compare_text`` whatever its stdout is; the Markdown
goes to compare_summary.md only (the action's job summary reads that file). Test ids are shown
as the runner names them (``render.test_ids``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.models.coverage import PatchCoverage
from verify_pr.models.report import clean_text
from verify_pr.models.verdict import VerdictFile
from verify_pr.render.compared import SUMMARY_MAX_ROWS, compared_line, paths_line
from verify_pr.render.coverage import MAX_LISTED_SPANS, headline, meaning, not_run_spans
from verify_pr.render.parts import ID_CHARS, Listed, failing, transition_counts
from verify_pr.render.test_ids import runner_id
from verify_pr.render.verdicts import compare_title, label, run_meaning

MESSAGE_LINES = 30
LINE_CHARS = 300
INDENT = "    "


def run_summary(verdict: VerdictFile, out: Path, terminal: bool = False) -> str:
    """A few lines: the verdict and its meaning, runner, counts, reasons (on a terminal, the
    failing tests and how each failed), files."""
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
    cases = failing(verdict) if terminal else []
    if cases:
        lines += ["", f"failing ({len(cases)}):"]
    for case in cases[:SUMMARY_MAX_ROWS]:
        where = f"{case.file}:{case.line}" if case.file and case.line else case.file
        lines.append(
            f"- {shown(runner_id(case.id)[:ID_CHARS])}" + (f" at {shown(where)}" if where else "")
        )
        lines += message_lines(case.message)
    if len(cases) > SUMMARY_MAX_ROWS:
        lines.append(f"- ... and {len(cases) - SUMMARY_MAX_ROWS} more (verdict.json)")
    if cases:
        lines.append("")
    if verdict.patch_coverage is not None:
        lines += coverage_text(verdict.patch_coverage)
    lines.append(f"files: {out}")
    return "\n".join(lines)


def compare_text(result: CompareResult, listed: Listed, out: Path) -> str:
    """compare_summary.md's facts as plain lines: the proof first, each with how it failed."""
    lines = [compare_title(result.verdict), ""]
    if result.proofs:
        lines.append(f"FAIL_TO_PASS ({len(result.proofs)}): fails on base's code, passes on head")
        for proof in result.proofs[:SUMMARY_MAX_ROWS]:
            where = f"{proof.file}:{proof.line}" if proof.file and proof.line else proof.file
            head = f"- {shown(runner_id(proof.id)[:ID_CHARS])}" + (
                f" at {shown(where)}" if where else ""
            )
            lines += [head, *message_lines(proof.message or "no message")]
        lines += _more(len(result.proofs))
        lines.append("")
    if result.verdict not in (CompareVerdict.VERIFIED, CompareVerdict.NOTHING_TO_PROVE):
        lines.append("why:")
    lines += [f"- {shown(reason)}" for reason in result.reasons]
    lines.append("")
    for title, ids in listed:
        lines += _section(title, ids)
    lines.append(compared_line(result, code=shown))
    lines.append(
        "counts: " + ", ".join(f"{n} {name}" for name, n in transition_counts(result.counts))
    )
    changed = paths_line(result, text=shown)
    if changed:
        lines.append(changed)
    lines.append("")
    lines += _section("Harness files changed by the PR", result.harness_files_changed)
    lines += _section("Conflicting paths", result.conflicts)
    lines.append(f"files: {out}")
    return "\n".join(lines)


def _section(title: str, items: Sequence[str]) -> list[str]:
    if not items:
        return []
    lines = [f"{title} ({len(items)}):"]
    lines += [f"- {shown(runner_id(item)[:ID_CHARS])}" for item in items[:SUMMARY_MAX_ROWS]]
    return [*lines, *_more(len(items)), ""]


def _more(count: int) -> list[str]:
    return [f"- ... and {count - SUMMARY_MAX_ROWS} more"] if count > SUMMARY_MAX_ROWS else []


def message_lines(message: str | None) -> list[str]:
    """A test's message as the runner wrote it, indented, one terminal line per line, capped."""
    if not message:
        return []
    raw = message.rstrip("\n").split("\n")
    lines = [INDENT + shown(line.expandtabs(4).rstrip()[:LINE_CHARS]) for line in raw]
    if len(lines) > MESSAGE_LINES:
        lines = [*lines[:MESSAGE_LINES], f"{INDENT}... {len(raw) - MESSAGE_LINES} more line(s)"]
    return lines


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


def coverage_text(cov: PatchCoverage) -> list[str]:
    """The same facts as plain lines for a terminal (the paths are the PR's text: ``shown``)."""
    lines = [shown(headline(cov)), *meaning(cov)]
    unmeasured = [f for f in cov.files if not f.measured][:MAX_LISTED_SPANS]
    lines += [f"- not measured: {shown(f.path)} ({shown(f.note)})" for f in unmeasured]
    spans = not_run_spans(cov)
    if spans:
        lines.append(f"changed lines nothing ran ({len(spans)}):")
        lines += [f"- {shown(span)}" for span in spans[:MAX_LISTED_SPANS]]
        if len(spans) > MAX_LISTED_SPANS:
            lines.append(f"- ... and {len(spans) - MAX_LISTED_SPANS} more")
    return [*lines, ""]
