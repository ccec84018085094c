"""Trust is re-derived, not read: the verdict's policy applied to the artifact.

The artifact's files pass their strict models, but a forged file can be well-formed and still
lie. So the publish side applies the rules the verifier decides by (``policy``: the same
functions) to the artifact's own data, and lists every finding; any one makes the result NOT
TRUSTED. Only the claims that decide a conclusion are checked both ways (VERIFIED and
NOTHING_TO_PROVE, the two that conclude ``success``): the artifact is refused when the
policy's conclusion (``policy.verdict.supported``) is not its claim; a claim weaker than the
evidence (NOT PROVEN where the data cannot tell) is left alone.
"""

from __future__ import annotations

from verify_pr.models.compare import CompareResult
from verify_pr.models.verdict import VerdictFile
from verify_pr.policy.run import RUN, Run
from verify_pr.policy.unloaded import forgiven as forgiven_unloaded
from verify_pr.policy.verdict import claim_findings, consistent
from verify_pr.policy.whole import Whole

__all__ = ["compare_problems", "forgiven_unloaded", "run_problems"]


def run_problems(verdict: VerdictFile, side: str = "the run") -> list[str]:
    """Where a run's verdict disagrees with its own sandbox result, totals and testcases."""
    return [finding.message for finding in RUN(Run(verdict, side))]


def compare_problems(result: CompareResult, head_sha: str, whole: Whole | None = None) -> list[str]:
    """Where a comparison contradicts itself, either of its runs, or the trusted event, and
    what its claim breaks of the policy. ``whole``: each run's every result, from the
    artifact's listings (``policy.whole``); else from the runs' testcases."""
    if result.head_sha != head_sha:
        return ["the comparison's head commit is not the verify run's head commit"]
    problems = [finding.message for finding in consistent(result, whole)]
    claimed = result.verdict.value
    found = claim_findings(result, whole)
    problems += [f"the comparison claims {claimed} although {f.message}" for f in found]
    return problems
