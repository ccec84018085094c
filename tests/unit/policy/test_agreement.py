"""The verifier and the publish job agree: for every comparison the verifier writes, the
policy's conclusion (``policy.verdict.supported``) is the verdict the verifier wrote, and the
publish job's intake accepts the artifact.

The comparisons are the verifier's own (``verify.compare.build_result``) over every pairing of
two tests in each status (and gone) on base's code and on head, with and without base's own
run (a run that executed no test is NOT PROVEN, as ``verify.rules.judge`` says), plus the
stored results the publish tests are built from. (The integration fixtures and hostile
results need Docker; their tests assert the same of each result through
``publish.consistency``. The golden cases are rendering fixtures, not results the verifier
writes: their VERIFIED carries no changed-code evidence, so the policy does not support it.)
"""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from tests.action.compare_builders import compare_files
from tests.unit.policy.forgery_helpers import honest_nothing, honest_verified
from tests.unit.verify.helpers import decided_result, outcome, ran_changed_code
from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.models.report import EXECUTED, TestStatus
from verify_pr.models.verdict import Verdict
from verify_pr.policy.verdict import CLAIMS, refusals, supported
from verify_pr.publish.intake import Accepted, validate_artifact
from verify_pr.verify.runs.suite import SuiteOutcome

BASE_SHA, HEAD_SHA = "a" * 40, "b" * 40
SIDE_STATUSES = (
    TestStatus.PASSED,
    TestStatus.FAILED,
    TestStatus.ERROR,
    TestStatus.SKIPPED,
    TestStatus.EXPECTED_FAILURE,
    None,
)


def _side(a: TestStatus | None, b: TestStatus | None) -> SuiteOutcome:
    """A run of ``t_a`` and ``t_b`` (None: not in it), judged as the verifier judges one."""
    ran = outcome({name: s for name, s in (("t_a", a), ("t_b", b)) if s is not None})
    if any(s in EXECUTED for s in (a, b)):
        return ran
    verdict = ran.verdict.model_copy(update={"verdict": Verdict.NOT_PROVEN})
    return dataclasses.replace(ran, verdict=verdict)


def _verifier_results() -> list[CompareResult]:
    found = []
    pairs = list(itertools.product(SIDE_STATUSES, repeat=2))
    for (ba, bb), (ha, hb) in itertools.product(pairs, repeat=2):
        before, head = _side(ba, bb), _side(ha, hb)
        for own in (None, outcome({"t_a": TestStatus.PASSED, "t_b": TestStatus.PASSED})):
            result = decided_result(
                before,
                head,
                base_own=own,
                edited=("m.py",) if own is not None else (),
                changed=("x.py", "m.py"),
                changed_code=ran_changed_code(before, head, own),
                code=("x.py",),
                tests=("m.py",),
            )
            found.append(result)
    return found


VERIFIER = _verifier_results()


def test_the_corpus_holds_every_verdict() -> None:
    """Positive control: the agreement below is asked of each verdict, not only of refusals."""
    assert {r.verdict for r in VERIFIER} == set(CompareVerdict) - {CompareVerdict.BLOCKED}


def test_the_policy_concludes_what_the_verifier_decided() -> None:
    disagree = [
        (r.verdict, supported(r), refusals(r), r.reasons)
        for r in VERIFIER
        if refusals(r) or supported(r) is not r.verdict
    ]
    assert not disagree, (len(disagree), disagree[:3])


def test_the_agreement_check_sees_a_disagreement() -> None:
    """Positive control: a VERIFIED of the corpus told as NOTHING_TO_PROVE is not concluded."""
    verified = next(r for r in VERIFIER if r.verdict is CompareVerdict.VERIFIED)
    told = verified.model_copy(update={"verdict": CompareVerdict.NOTHING_TO_PROVE})
    assert supported(told) is not told.verdict and refusals(told)


STORED = {
    "builders-verified": honest_verified(),
    "builders-nothing": honest_nothing(),
}


@pytest.mark.parametrize("name", sorted(STORED))
def test_the_stored_results_are_accepted_as_claimed(name: str) -> None:
    result = STORED[name]
    assert refusals(result) == [], refusals(result)
    if result.verdict in CLAIMS:
        assert supported(result) is result.verdict
    intake = validate_artifact(compare_files(result), result.head_sha)
    assert isinstance(intake, Accepted), intake
