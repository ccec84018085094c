"""The check run's title, summary and text, rendered from an intake and a trust assessment.

Every string that comes from the artifact goes through ``verify_pr.markdown`` (escaped, mentions
and references neutralised, controls and bidi overrides made visible); the rest is ours.
"""

from __future__ import annotations

from collections.abc import Sequence

from verify_pr.compare_markdown import compared_line, proof_lines
from verify_pr.markdown import (
    escape_inline,
    fenced_block,
    inline_code,
    table,
    transition_counts_table,
)
from verify_pr.models.compare import CompareResult, CompareVerdict, Transition
from verify_pr.models.report import TestStatus
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.publish.checks import CheckOutput, Conclusion
from verify_pr.publish.intake import Intake
from verify_pr.publish.trust import Trust

MAX_FAILING_ROWS = 100
OUTPUT_SHOWN_BYTES = 48 * 1024


COMPARE_MEANINGS = {
    CompareVerdict.VERIFIED: (
        "VERIFIED: the suite ran in the sandbox on the PR's base and on its head; at least one "
        "test fails on base and passes on head, none regressed, none was removed or newly "
        "skipped, and both runs completed with a clean report."
    ),
    CompareVerdict.NOT_PROVEN: (
        "NOT PROVEN: base against head does not show that the PR fixes anything (no test turns "
        "green, a regression, removed or skipped tests, a changed harness, an incomplete run...). "
        "This is not a pass: the check is neutral, which a required check counts as passing, so "
        "review the reasons before merging."
    ),
    CompareVerdict.BLOCKED: (
        "BLOCKED: a sandbox could not run (the image, the daemon or the runner failed). This "
        "says nothing about the PR; a maintainer has to fix the verify job and re-run it."
    ),
}
FLIPS_SHOWN = (Transition.FAIL_TO_PASS, Transition.PASS_TO_FAIL, Transition.REMOVED)
MAX_FLIP_ROWS = 50


MEANINGS = {
    Verdict.PASS: "The suite ran in the sandbox and its report shows no failure.",
    Verdict.FAIL: "The suite ran in the sandbox and its report shows failing tests.",
    Verdict.NOT_PROVEN: (
        "NOT PROVEN: the run does not support a verdict either way (no report, a crash, a "
        "timeout, missing dependencies, no tests...). This is not a pass: the check is neutral, "
        "which a required check counts as passing, so review the reasons before merging."
    ),
    Verdict.BLOCKED: (
        "BLOCKED: the sandbox could not run (the image, the daemon or the runner failed). This "
        "says nothing about the PR; a maintainer has to fix the verify job and re-run it."
    ),
}


def render(
    intake: Intake, trust: Trust, conclusion: Conclusion, notes: Sequence[str] = ()
) -> CheckOutput:
    """Title, summary and text; every string from the artifact is escaped."""
    verdict = intake.verdict
    lines: list[str] = []
    if intake.refused:
        title = "NOT TRUSTED: the verify run's artifact was refused"
        lines += ["## The result cannot be used", "", escape_inline(intake.refused), ""]
        if intake.refused_claim:
            claim = intake.refused_claim.replace("_", " ")
            lines += [f"The artifact claimed {escape_inline(claim)}; it is not believed.", ""]
    elif not trust.trusted or intake.claimed is None:
        title = "NOT TRUSTED: the result of this PR cannot be believed"
    else:
        title = intake.claimed.replace("_", " ")
    if not trust.trusted:
        lines += ["## NOT TRUSTED", ""]
        lines += [f"- {escape_inline(reason)}" for reason in trust.reasons]
        lines += [
            "",
            f"Whatever the artifact claims, this check concludes `{conclusion.value}`: "
            "a maintainer must review the PR (and any workflow change) and verify it another way.",
            "",
        ]
    if verdict is not None:
        claimed = "Claimed verdict" if not trust.trusted else "Verdict"
        lines += [f"## {claimed}: {verdict.verdict.value.replace('_', ' ')}", ""]
        lines += [MEANINGS[verdict.verdict], ""]
        if verdict.totals is not None:
            t = verdict.totals
            lines.append(
                table(
                    ("total", "passed", "failed", "errors", "skipped"),
                    [(str(t.total), str(t.passed), str(t.failed), str(t.error), str(t.skipped))],
                )
            )
        lines += [f"- {escape_inline(reason)}" for reason in verdict.reasons]
        lines.append(f"\nRunner: {inline_code(verdict.runner)}; sandbox: {verdict.sandbox.status}")
    if intake.compare is not None:
        lines += _compare_summary(intake.compare, trust)
    if notes:
        lines += ["", "## Notes", ""] + [f"- {escape_inline(note)}" for note in notes]
    text = None
    if verdict is not None:
        text = _details(verdict, intake.output)
    elif intake.compare is not None:
        text = _details(intake.compare.head, intake.output, heading="Failing tests on head")
    return CheckOutput(title=title, summary="\n".join(lines) + "\n", text=text)


def _compare_summary(result: CompareResult, trust: Trust) -> list[str]:
    claimed = "Claimed verdict" if not trust.trusted else "Verdict"
    c = result.counts
    lines = [f"## {claimed}: {result.verdict.value.replace('_', ' ')} (base against head)", ""]
    lines += [COMPARE_MEANINGS[result.verdict], ""]
    # the proof first: each FAIL_TO_PASS test, where, and how it failed on base's code
    lines += proof_lines(result)
    lines += [compared_line(result), ""]
    lines.append(transition_counts_table(c))
    lines += [f"- {escape_inline(reason)}" for reason in result.reasons]
    lines.append("")
    for kind in FLIPS_SHOWN:
        ids = [t.id for t in result.transitions if t.transition is kind]
        if ids:
            lines += [f"### {kind.value} ({len(ids)})", ""]
            lines.append(table(("test",), [(i[:300],) for i in ids[:MAX_FLIP_ROWS]]))
            if len(ids) > MAX_FLIP_ROWS:
                lines += [f"… and {len(ids) - MAX_FLIP_ROWS} more.", ""]
    if result.harness_files_changed:
        files = result.harness_files_changed
        lines += [f"### Harness files changed by the PR ({len(files)})", ""]
        lines.append(table(("file",), [(f[:300],) for f in files[:MAX_FLIP_ROWS]]))
    return lines


def _details(verdict: VerdictFile, output: str, heading: str = "Failing tests") -> str:
    failing = [c for c in verdict.testcases if c.status in (TestStatus.FAILED, TestStatus.ERROR)]
    parts: list[str] = []
    if failing:
        rows = [
            (c.name, c.file or "", str(c.line or ""), (c.message or "")[:500])
            for c in failing[:MAX_FAILING_ROWS]
        ]
        parts += [f"## {heading}", "", table(("test", "file", "line", "message"), rows)]
    if output:
        shown = output.encode()[-OUTPUT_SHOWN_BYTES:].decode("utf-8", "ignore")
        parts += ["## Output (the end)", "", fenced_block(shown)]
    return "\n".join(parts) + "\n"
