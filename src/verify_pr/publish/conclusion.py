"""The check run's conclusion: never ``success`` or ``failure`` for a refused or untrusted result.

Trusted results: PASS -> success, FAIL -> failure, NOT_PROVEN -> neutral, BLOCKED ->
action_required; for a comparison VERIFIED -> success, NOTHING_TO_PROVE -> success (the PR broke
nothing the suite can see; its title says that it proves no fix), NOT_PROVEN -> neutral,
BLOCKED -> action_required. Everything else (refused, untrusted, absent) -> action_required.
"""

from __future__ import annotations

from typing import assert_never

from verify_pr.models.compare import CompareVerdict
from verify_pr.models.verdict import Verdict
from verify_pr.publish.checks import Conclusion
from verify_pr.publish.intake import Accepted, Intake, Refused
from verify_pr.publish.trust import Trust


def conclude(verdict: Verdict | CompareVerdict | None, trust: Trust) -> Conclusion:
    """A run's or a comparison's conclusion: never success or failure for an untrusted or
    absent result; success only for a trusted PASS, VERIFIED or NOTHING_TO_PROVE."""
    if verdict is None or not trust.trusted:
        return Conclusion.ACTION_REQUIRED
    match verdict:
        case Verdict.PASS | CompareVerdict.VERIFIED | CompareVerdict.NOTHING_TO_PROVE:
            return Conclusion.SUCCESS
        case Verdict.FAIL:
            return Conclusion.FAILURE
        case Verdict.NOT_PROVEN | CompareVerdict.NOT_PROVEN:
            return Conclusion.NEUTRAL
        case Verdict.BLOCKED | CompareVerdict.BLOCKED:
            return Conclusion.ACTION_REQUIRED
        case _ as unreachable:
            assert_never(unreachable)


def conclusion_for(intake: Intake, trust: Trust) -> Conclusion:
    """The one place an intake and a trust assessment become a conclusion."""
    match intake:
        case Refused():
            return Conclusion.ACTION_REQUIRED
        case Accepted(artifact=artifact):
            return conclude(artifact.claimed, trust)
        case _ as unreachable:
            assert_never(unreachable)
