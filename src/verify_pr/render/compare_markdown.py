"""compare_summary.md: ten seconds for a maintainer, the proof first.

Each FAIL_TO_PASS test (id, file:line, how it failed on base's code), then what stands against
the PR, then what was compared and the counts. The verifier computes the lists of tests that
stand against the PR (``verify.pairing.pairing.findings``); this only shows them, escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from verify_pr.markdown import inline_code
from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.render.compared import (
    SUMMARY_MAX_ROWS,
    base_own_line,
    compared_line,
    paths_line,
    proof_lines,
    removed_lines,
)
from verify_pr.render.coverage import coverage_section
from verify_pr.render.parts import ID_CHARS, Listed, bullets, transition_counts_table
from verify_pr.render.verdicts import compare_title


def _listed(title: str, items: Sequence[str]) -> list[str]:
    lines = [f"**{title}** ({len(items)}):"]
    lines += [f"- {inline_code(i[:ID_CHARS])}" for i in items[:SUMMARY_MAX_ROWS]]
    if len(items) > SUMMARY_MAX_ROWS:
        lines.append(f"- … and {len(items) - SUMMARY_MAX_ROWS} more")
    return [*lines, ""]


def compare_summary_markdown(result: CompareResult, listed: Listed) -> str:
    """The proof first, then what stands against it (``listed``), then counts and paths."""
    lines = [f"## verify-pr compare: {compare_title(result.verdict)}", ""]
    lines += proof_lines(result)
    lines += removed_lines(result)
    if result.verdict not in (CompareVerdict.VERIFIED, CompareVerdict.NOTHING_TO_PROVE):
        lines.append("**Why:**")
    lines += bullets(result.reasons)
    lines.append("")
    for title, ids in listed:
        if ids:
            lines += _listed(title, ids)
    lines += coverage_section(result.patch_coverage)
    lines += [compared_line(result), "", transition_counts_table(result.counts)]
    changed = paths_line(result)
    if changed:
        lines += [changed, ""]
    own = base_own_line(result)
    if own:
        lines += [own, ""]
    for title, paths in (
        ("Harness files changed by the PR", result.harness_files_changed),
        ("Conflicting paths", result.conflicts),
    ):
        if paths:
            lines += _listed(title, paths)
    return "\n".join(lines)
