"""compare_summary.md: ten seconds for a maintainer, the proof first.

Each FAIL_TO_PASS test (id, file:line, how it failed on base's code), then what stands against
the PR, then what was compared and the counts. Every string from the PR is escaped.
"""

from __future__ import annotations

from verify_pr.compare_markdown import SUMMARY_MAX_ROWS, compared_line, proof_lines
from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.verify.compare import findings, statuses

_TITLES = {
    CompareVerdict.VERIFIED: "VERIFIED: the PR's code turns failing tests green, and breaks none",
    CompareVerdict.NOT_PROVEN: "NOT PROVEN: the runs do not show that the PR works",
    CompareVerdict.BLOCKED: "BLOCKED: a sandbox could not run (this says nothing about the PR)",
}


def summary_markdown(result: CompareResult) -> str:
    """Ten seconds for a maintainer: the proof first (each FAIL_TO_PASS test, where, how it
    failed on base's code), then what stands against it, then counts."""
    from verify_pr.markdown import escape_inline, inline_code

    lines = [f"## verify-pr compare: {_TITLES[result.verdict]}", ""]
    lines += proof_lines(result)
    if result.verdict is not CompareVerdict.VERIFIED:
        lines.append("**Why:**")
    lines += [f"- {escape_inline(reason)}" for reason in result.reasons]
    lines.append("")
    own = statuses(result.base_own)
    found = findings(result.transitions, statuses(result.base), statuses(result.head), own)
    listed = (
        ("PASS_TO_FAIL (regressions)", found.regressed),
        ("Test changed, not the code", list(result.test_changed)),
        ("Newly skipped", found.newly_skipped),
        ("Newly expected to fail", found.newly_expected),
        ("Flaky", list(result.flaky)),
        ("REMOVED", found.gone),
    )
    for title, ids in listed:
        if ids:
            lines.append(f"**{title}** ({len(ids)}):")
            lines += [f"- {inline_code(i[:300])}" for i in ids[:SUMMARY_MAX_ROWS]]
            if len(ids) > SUMMARY_MAX_ROWS:
                lines.append(f"- … and {len(ids) - SUMMARY_MAX_ROWS} more")
            lines.append("")
    c = result.counts
    lines += [
        compared_line(result),
        "",
        "| FAIL→PASS | PASS→FAIL | PASS→PASS | FAIL→FAIL | added | removed | skipped "
        "| expected to fail |",
        "|---|---|---|---|---|---|---|---|",
        f"| {c.fail_to_pass} | {c.pass_to_fail} | {c.pass_to_pass} | {c.fail_to_fail} "
        f"| {c.added} | {c.removed} | {c.skipped} | {c.expected_failure} |",
        "",
    ]
    if result.test_paths or result.code_paths:
        lines.append(
            f"The PR changes {len(result.test_paths)} test path(s) and "
            f"{len(result.code_paths)} code path(s)"
            + (f" ({escape_inline(result.test_rule)})" if result.test_rule else "")
            + "."
        )
        lines.append("")
    for title, paths in (
        ("Harness files changed by the PR", result.harness_files_changed),
        ("Conflicting paths", result.conflicts),
    ):
        if paths:
            lines.append(f"**{title}** ({len(paths)}):")
            lines += [f"- {inline_code(p[:300])}" for p in paths[:SUMMARY_MAX_ROWS]]
            lines.append("")
    return "\n".join(lines)
