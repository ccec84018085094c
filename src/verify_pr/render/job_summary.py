"""The verify step's job summary (``$GITHUB_STEP_SUMMARY``) for mode run and mode compare.

Verdict and meaning, the proof first for a comparison, counts, reasons, the tests that matter;
every string from the PR escaped. The action fits the result to its size limit.
"""

from __future__ import annotations

from verify_pr.markdown import escape_inline, inline_code
from verify_pr.models.compare import CompareResult
from verify_pr.models.verdict import VerdictFile
from verify_pr.render.compared import compared_line, proof_lines, removed_lines
from verify_pr.render.coverage import coverage_section
from verify_pr.render.parts import (
    bullets,
    failing,
    failing_table,
    flip_sections,
    harness_section,
    totals_table,
    transition_counts_table,
)
from verify_pr.render.verdicts import compare_meaning, label, run_meaning

MAX_FAILING_ROWS = 50
MESSAGE_CHARS = 300


def run_job_summary(verdict: VerdictFile) -> str:
    """Mode run: verdict, counts, failing tests."""
    lines = [
        f"## verify-pr: {label(verdict.verdict)}",
        "",
        f"{run_meaning(verdict.verdict)}.",
        "",
        f"Runner: {escape_inline(verdict.runner)} "
        f"{escape_inline(verdict.runner_version or '')}".rstrip(),
        f"Sandbox status: {verdict.sandbox.status.value}",
        "",
    ]
    if verdict.totals is not None:
        lines.append(totals_table(verdict.totals))
    if verdict.reasons:
        lines += ["### Reasons", "", *bullets(verdict.reasons), ""]
    cases = failing(verdict)
    if cases:
        lines += ["### Failing tests", "", failing_table(cases, MAX_FAILING_ROWS, MESSAGE_CHARS)]
        if len(cases) > MAX_FAILING_ROWS:
            lines.append(f"… and {len(cases) - MAX_FAILING_ROWS} more.")
    if verdict.patch_coverage is not None:
        gap = [""] if lines[-1] else []  # a table or list before it ends without a blank line
        lines += [*gap, "### Patch coverage", "", *coverage_section(verdict.patch_coverage)]
    return "\n".join(lines) + "\n"


def compare_job_summary(result: CompareResult) -> str:
    """Mode compare: verdict, the proof first, what was compared, counts, flipped tests."""
    lines = [
        f"## verify-pr compare: {label(result.verdict)}",
        "",
        f"{compare_meaning(result.verdict)}.",
        "",
        *proof_lines(result),
        *removed_lines(result),
        compared_line(result),
        "",
        f"Base {inline_code(result.base_sha[:12])} ({result.before.verdict.value}, sandbox "
        f"{result.before.sandbox.status.value}) against head {inline_code(result.head_sha[:12])} "
        f"({result.head.verdict.value}, sandbox {result.head.sandbox.status.value})"
        + ("; strict harness" if result.strict_harness else ""),
        "",
        transition_counts_table(result.counts),
    ]
    if result.reasons:
        lines += ["### Reasons", "", *bullets(result.reasons), ""]
    if result.patch_coverage is not None:
        lines += ["### Patch coverage", "", *coverage_section(result.patch_coverage)]
    lines += flip_sections(result)
    lines += harness_section(result)
    return "\n".join(lines) + "\n"
