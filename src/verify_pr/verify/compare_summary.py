"""compare_summary.md: ten seconds for a maintainer, the proof first.

Each FAIL_TO_PASS test (id, file:line, how it failed on base's code), then what stands against
the PR, then what was compared and the counts. Every string from the PR is escaped.
"""

from __future__ import annotations

from verify_pr.models.compare import CompareMethod, CompareResult, CompareVerdict
from verify_pr.verify.compare import findings, statuses

SUMMARY_MAX_ROWS = 10
SUMMARY_MESSAGE_CHARS = 300
_TITLES = {
    CompareVerdict.VERIFIED: "VERIFIED: the PR's code turns failing tests green, and breaks none",
    CompareVerdict.NOT_PROVEN: "NOT PROVEN: the runs do not show that the PR works",
    CompareVerdict.BLOCKED: "BLOCKED: a sandbox could not run (this says nothing about the PR)",
}


def compared_line(result: CompareResult) -> str:
    """What ran as before and after, in one line."""
    from verify_pr.markdown import inline_code

    base, head = inline_code(result.base_sha[:12]), inline_code(result.head_sha[:12])
    if result.method is CompareMethod.MERGE and result.merge_tree:
        after = f"head {head} merged into base {base} (tree {inline_code(result.merge_tree[:12])})"
    elif result.method is CompareMethod.HEAD:
        after = f"head {head} (base {base} is its ancestor)"
    else:
        after = f"head {head}"
    since = (
        f", PR's change from merge base {inline_code(result.merge_base[:12])}"
        if (result.merge_base)
        else ""
    )
    strict = "; head ran with base's harness files (strict)" if result.strict_harness else ""
    return f"Compared base {base} ({result.base.verdict}) with {after}{since}{strict}."


def proof_lines(result: CompareResult) -> list[str]:
    """Each FAIL_TO_PASS test: id, file:line, and how it failed on base's code (escaped)."""
    from verify_pr.markdown import escape_inline, inline_code

    if not result.proofs:
        return []
    lines = [f"**FAIL_TO_PASS** ({len(result.proofs)}): fails on base's code, passes on head"]
    for proof in result.proofs[:SUMMARY_MAX_ROWS]:
        where = f"{proof.file}:{proof.line}" if proof.file and proof.line else proof.file
        message = " ".join((proof.message or "no message").split())
        if len(message) > SUMMARY_MESSAGE_CHARS:
            message = message[:SUMMARY_MESSAGE_CHARS] + " …"
        lines.append(
            f"- {inline_code(proof.id[:300])}"
            + (f" at {inline_code(where[:300])}" if where else "")
            + f": {escape_inline(message)}"
        )
    if len(result.proofs) > SUMMARY_MAX_ROWS:
        lines.append(f"- … and {len(result.proofs) - SUMMARY_MAX_ROWS} more")
    return [*lines, ""]


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
        ("Newly skipped or expected to fail", found.newly_skipped),
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
        "| FAIL→PASS | PASS→FAIL | PASS→PASS | FAIL→FAIL | added | removed | skipped |",
        "|---|---|---|---|---|---|---|",
        f"| {c.fail_to_pass} | {c.pass_to_fail} | {c.pass_to_pass} | {c.fail_to_fail} "
        f"| {c.added} | {c.removed} | {c.skipped} |",
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
