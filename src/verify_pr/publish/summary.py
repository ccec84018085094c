"""The check run's title, summary and text, rendered from an intake and a trust assessment.

What only the publish job knows (the refusal, the trust reasons, notes) is written here; the
verdict, the comparison and the details are ``verify_pr.render.check_run``'s. Every string that
comes from the artifact goes through ``verify_pr.markdown`` (escaped, mentions and references
neutralised, controls and bidi overrides made visible); the rest is ours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from verify_pr.markdown import escape_inline
from verify_pr.publish.checks import CheckOutput, Conclusion
from verify_pr.publish.intake import (
    Accepted,
    Artifact,
    CompareArtifact,
    Intake,
    Refused,
    RunArtifact,
)
from verify_pr.publish.trust import Trust
from verify_pr.render.check_run import compare_section, details, run_section
from verify_pr.render.verdicts import compare_check_title


def render(
    intake: Intake, trust: Trust, conclusion: Conclusion, notes: Sequence[str] = ()
) -> CheckOutput:
    """Title, summary and text; every string from the artifact is escaped."""
    lines: list[str] = []
    artifact: Artifact | None = None
    match intake:
        case Refused(reason=reason, claim=claim):
            title = "NOT TRUSTED: the verify run's artifact was refused"
            lines += ["## The result cannot be used", "", escape_inline(reason), ""]
            if claim:
                said = escape_inline(claim.replace("_", " "))
                lines += [f"The artifact claimed {said}; it is not believed.", ""]
        case Accepted(artifact=artifact):
            title = (
                _title(artifact)
                if trust.trusted
                else "NOT TRUSTED: the result of this PR cannot be believed"
            )
        case _ as unreachable:
            assert_never(unreachable)
    if not trust.trusted:
        lines += ["## NOT TRUSTED", ""]
        lines += [f"- {escape_inline(reason)}" for reason in trust.reasons]
        lines += [
            "",
            f"Whatever the artifact claims, this check concludes `{conclusion.value}`: "
            "a maintainer must review the PR (and any workflow change) and verify it another way.",
            "",
        ]
    text = None
    match artifact:
        case RunArtifact(verdict=verdict, output=output):
            lines += run_section(verdict, trust.trusted)
            text = details(verdict, output)
        case CompareArtifact(compare=compare, output=output):
            lines += compare_section(compare, trust.trusted)
            text = details(compare.head, output, heading="Failing tests on head")
        case None:
            pass
        case _ as never:
            assert_never(never)
    if notes:
        lines += ["", "## Notes", ""] + [f"- {escape_inline(note)}" for note in notes]
    return CheckOutput(title=title, summary="\n".join(lines) + "\n", text=text)


def _title(artifact: Artifact) -> str:
    match artifact:
        case RunArtifact(verdict=verdict):
            return verdict.verdict.value.replace("_", " ")
        case CompareArtifact(compare=compare):
            return compare_check_title(compare.verdict)
        case _ as unreachable:
            assert_never(unreachable)
