"""The Markdown of a comparison that every summary leads with: the proof, and what was compared.

Shared by compare_summary.md, the action's job summary and the check run. Every string from the
PR is escaped.
"""

from __future__ import annotations

from collections.abc import Callable

from verify_pr.markdown import escape_inline, inline_code
from verify_pr.models.compare import ChangedCode, CompareMethod, CompareResult, Proof
from verify_pr.models.removed import RemovedStanding

SUMMARY_MAX_ROWS = 10
SUMMARY_MESSAGE_CHARS = 300


def compared_line(result: CompareResult, code: Callable[[str], str] = inline_code) -> str:
    """What ran as before and after, in one line (``code`` shows an id: Markdown by default)."""
    base, head = code(result.base_sha[:12]), code(result.head_sha[:12])
    if result.method is CompareMethod.MERGE and result.merge_tree:
        after = f"head {head} merged into base {base} (tree {code(result.merge_tree[:12])})"
    elif result.method is CompareMethod.HEAD:
        after = f"head {head} (base {base} is its ancestor)"
    else:
        after = f"head {head}"
    since = (
        f", PR's change from merge base {code(result.merge_base[:12])}"
        if (result.merge_base)
        else ""
    )
    strict = "; head ran with base's harness files (strict)" if result.strict_harness else ""
    return f"Compared base {base} ({result.before.verdict}) with {after}{since}{strict}."


def paths_line(result: CompareResult, text: Callable[[str], str] = escape_inline) -> str | None:
    """How many test and code paths the PR changes, and the rule that split them. The paths
    that are neither (docs, data, config: ``other_paths``, listed among ``test_paths`` since
    they run in the PR's version on both sides) are counted apart, never as tests."""
    if not (result.test_paths or result.code_paths):
        return None
    others = set(result.other_paths)
    neither = sum(1 for path in result.test_paths if path in others)
    tests = len(result.test_paths) - neither
    rule = f" ({text(result.test_rule)})" if result.test_rule else ""
    counted = f"{tests} test path(s) and {len(result.code_paths)} code path(s){rule}"
    if neither:
        counted = (
            f"{tests} test path(s), {len(result.code_paths)} code path(s){rule} and "
            f"{neither} path(s) that are neither test nor code (docs, data or config)"
        )
    return f"The PR changes {counted}."


_CHANGED_CODE = {
    ChangedCode.RAN: "ran changed code",
    ChangedCode.NOT_RUN: "ran no changed code line (not a proof)",
    ChangedCode.NO_CODE: "the PR changes no code (not a proof)",
    ChangedCode.NO_DATA: "its re-runs returned no usable coverage data (not a proof)",
    ChangedCode.NOT_RERUN: "not re-run, so not known to run changed code (not a proof)",
    ChangedCode.NOT_MEASURED: "which code it ran was not measured",
}


def _changed_code(proof: Proof) -> str:
    """`` — ran changed code: `head a.py:3`, ...``, or what stood in the way; nothing for a
    file older than the rule."""
    if proof.changed_code is None:
        return ""
    shown = ", ".join(inline_code(line) for line in proof.changed_code_lines[:3])
    return f" — {_CHANGED_CODE[proof.changed_code]}" + (f": {shown}" if shown else "")


def proof_lines(result: CompareResult) -> list[str]:
    """Each FAIL_TO_PASS test: id, file:line, and how it failed on base's code (escaped)."""
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
            + _changed_code(proof)
        )
    if len(result.proofs) > SUMMARY_MAX_ROWS:
        lines.append(f"- … and {len(result.proofs) - SUMMARY_MAX_ROWS} more")
    return [*lines, ""]


_STANDING_SHOWN = (
    (
        RemovedStanding.FAILED,
        "fails on the PR's code, run from base's file: the PR removes a test its code breaks",
    ),
    (
        RemovedStanding.CHANGED,
        "fails on the PR's code, run from base's file; a new case of the same test proves the "
        "fix: an expectation the PR changed, review it",
    ),
    (RemovedStanding.PASSED, "passes on the PR's code, run from base's file"),
    (RemovedStanding.NOT_RUN, "could not run on the PR's code from base's file"),
)


def removed_lines(result: CompareResult) -> list[str]:
    """Each test of base the PR removes or renames, with what its run on head showed."""
    lines: list[str] = []
    for standing, meaning in _STANDING_SHOWN:
        ids = [t.id for t in result.removed_tests if t.standing is standing]
        if not ids:
            continue
        lines.append(f"**REMOVED or renamed, run on head** ({len(ids)}): {meaning}")
        lines += [f"- {inline_code(i[:300])}" for i in ids[:SUMMARY_MAX_ROWS]]
        if len(ids) > SUMMARY_MAX_ROWS:
            lines.append(f"- … and {len(ids) - SUMMARY_MAX_ROWS} more")
        lines.append("")
    return lines


def base_own_line(result: CompareResult) -> str | None:
    """How much of base's own run ran by id (None when it ran whole, or did not run)."""
    from verify_pr.models.report import TestStatus

    own = result.base_own
    if own is None:
        return None
    not_run = sum(1 for c in own.testcases if c.status is TestStatus.NOT_RUN)
    if not not_run:
        return None
    ran = len(own.testcases) - not_run
    return (
        f"Base's own run ran {ran} of the {len(own.testcases)} listed test results by id "
        f"(base's ids from a collection of the whole of base); {not_run} not run: nothing "
        "the verdict reads needs them."
    )
