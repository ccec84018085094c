"""The check run's sections about the result: the verdict, the comparison, the details text.

The publish job adds what only it knows (trust, refusal, notes) around these; every string from
the artifact is escaped here.
"""

from __future__ import annotations

from verify_pr.markdown import fenced_block, inline_code
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
from verify_pr.render.verdicts import compare_check_meaning, label, run_check_meaning

MAX_FAILING_ROWS = 100
MESSAGE_CHARS = 500
OUTPUT_SHOWN_BYTES = 48 * 1024


def _claimed(trusted: bool) -> str:
    return "Verdict" if trusted else "Claimed verdict"


def run_section(verdict: VerdictFile, trusted: bool) -> list[str]:
    """A run's verdict, its meaning, counts, reasons and runner."""
    lines = [f"## {_claimed(trusted)}: {label(verdict.verdict)}", ""]
    lines += [run_check_meaning(verdict.verdict), ""]
    if verdict.totals is not None:
        lines.append(totals_table(verdict.totals))
    lines += bullets(verdict.reasons)
    lines.append(f"\nRunner: {inline_code(verdict.runner)}; sandbox: {verdict.sandbox.status}")
    if verdict.patch_coverage is not None:
        lines += ["", *coverage_section(verdict.patch_coverage)]
    return lines


def compare_section(result: CompareResult, trusted: bool) -> list[str]:
    """A comparison's verdict, the proof first, what was compared, counts, flipped tests."""
    lines = [f"## {_claimed(trusted)}: {label(result.verdict)} (base against head)", ""]
    lines += [compare_check_meaning(result.verdict), ""]
    lines += proof_lines(result)
    lines += removed_lines(result)
    lines += [compared_line(result), ""]
    lines.append(transition_counts_table(result.counts))
    lines += bullets(result.reasons)
    lines.append("")
    lines += coverage_section(result.patch_coverage)
    lines += flip_sections(result)
    lines += harness_section(result)
    return lines


def details(verdict: VerdictFile, output: str, heading: str = "Failing tests") -> str:
    """The check run's text: the failing tests, then the end of the output."""
    cases = failing(verdict)
    parts: list[str] = []
    if cases:
        table = failing_table(cases, MAX_FAILING_ROWS, MESSAGE_CHARS)
        parts += [f"## {heading}", "", table]
    if output:
        shown = output.encode()[-OUTPUT_SHOWN_BYTES:].decode("utf-8", "ignore")
        parts += ["## Output (the end)", "", fenced_block(shown)]
    return "\n".join(parts) + "\n"
