"""The check run's title, summary and text, rendered from an intake and a trust assessment.

What only the publish job knows (the refusal, the trust reasons, notes) is written here; the
verdict, the comparison and the details are ``verify_pr.render.check_run``'s. Every string that
comes from the artifact goes through ``verify_pr.markdown`` (escaped, mentions and references
neutralised, controls and bidi overrides made visible); the rest is ours.
"""

from __future__ import annotations

from collections.abc import Sequence

from verify_pr.markdown import escape_inline
from verify_pr.publish.checks import CheckOutput, Conclusion
from verify_pr.publish.intake import Intake
from verify_pr.publish.trust import Trust
from verify_pr.render.check_run import compare_section, details, run_section
from verify_pr.render.verdicts import compare_check_title


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
    elif intake.compare is not None:
        title = compare_check_title(intake.compare.verdict)
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
        lines += run_section(verdict, trust.trusted)
    if intake.compare is not None:
        lines += compare_section(intake.compare, trust.trusted)
    if notes:
        lines += ["", "## Notes", ""] + [f"- {escape_inline(note)}" for note in notes]
    text = None
    if verdict is not None:
        text = details(verdict, intake.output)
    elif intake.compare is not None:
        text = details(intake.compare.head, intake.output, heading="Failing tests on head")
    return CheckOutput(title=title, summary="\n".join(lines) + "\n", text=text)
