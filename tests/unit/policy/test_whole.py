"""The policy's rules read each run's every result through ``policy.whole``: the listings of a
run wider than its verdict file (issue 36), else the runs' testcases. A regression, or a
result the transitions or totals do not account for, that only the listing shows stands
against the claim; the honest wide comparison of the same runs (the positive control) is
accepted as claimed."""

from __future__ import annotations

from collections.abc import Mapping

from tests.action.compare_builders import case
from tests.unit.policy.forgery_helpers import honest_verified
from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.models.report import TestStatus, Totals
from verify_pr.models.transitions import classify_plain, models, tally
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.policy.cases import worst_by_id
from verify_pr.policy.verdict import claim_findings, consistent, refusals, supported
from verify_pr.policy.whole import DROPPED, Compared, Whole

P, F, S = TestStatus.PASSED, TestStatus.FAILED, TestStatus.SKIPPED
FIX = case(P).id
EXTRA = case(P, "test_9").id  # a result beyond the testcases each verdict file lists


def _counted(run: VerdictFile, listing: Mapping[str, TestStatus]) -> VerdictFile:
    """The run's totals counting its whole report, as the verifier's do for a wide run."""
    every = Totals.count(case(s, i.rpartition("::")[2]) for i, s in listing.items())
    return run.model_copy(update={"totals": every})


def _wide(
    before: Mapping[str, TestStatus], head: Mapping[str, TestStatus], claim: CompareVerdict
) -> tuple[CompareResult, Whole]:
    """The honest VERIFIED comparison's runs with these listings, its transitions and counts
    re-derived from them (as the verifier, or an attacker who forges consistently, writes)."""
    honest = honest_verified()
    rows = classify_plain(before, head)
    result = honest.model_copy(
        update={
            "verdict": claim,
            "transitions": tuple(models(rows, DROPPED)),
            "counts": tally(rows),
            "before": _counted(honest.before, before),
            "head": _counted(honest.head, head),
        }
    )
    return result, Whole(dict(before), dict(head), {}, wide=True)


def test_without_listings_the_rules_read_the_testcases() -> None:
    result = honest_verified()
    subject = Compared.of(result)
    assert subject.whole == Whole(
        worst_by_id(result.before.testcases), worst_by_id(result.head.testcases), {}
    )
    assert not subject.whole.wide
    assert refusals(result) == [] and supported(result) is CompareVerdict.VERIFIED


def test_the_honest_wide_comparison_is_verified() -> None:
    result, whole = _wide({FIX: F, EXTRA: P}, {FIX: P, EXTRA: P}, CompareVerdict.VERIFIED)
    assert [t.id for t in result.transitions] == [FIX]  # PASS_TO_PASS left out
    assert result.counts.pass_to_pass == 1
    assert refusals(result, whole) == [], refusals(result, whole)
    assert supported(result, whole) is CompareVerdict.VERIFIED


def test_a_regression_only_the_listing_shows_stands_against_verified() -> None:
    result, whole = _wide({FIX: F, EXTRA: P}, {FIX: P, EXTRA: F}, CompareVerdict.VERIFIED)
    assert [f.message for f in consistent(result, whole)] == []
    assert "a test regressed" in [f.message for f in claim_findings(result, whole)]
    assert supported(result, whole) is CompareVerdict.NOT_PROVEN


def test_transitions_that_leave_out_what_the_listing_shows_do_not_follow() -> None:
    honest, _ = _wide({FIX: F, EXTRA: P}, {FIX: P, EXTRA: P}, CompareVerdict.VERIFIED)
    _, regressed = _wide({FIX: F, EXTRA: P}, {FIX: P, EXTRA: F}, CompareVerdict.VERIFIED)
    messages = [f.message for f in consistent(honest, regressed)]
    assert "the transitions do not follow from the listings" in messages
    # a wide result's PASS_TO_PASS count is every id's, not its transitions'
    short = honest.model_copy(
        update={"counts": honest.counts.model_copy(update={"pass_to_pass": 0})}
    )
    _, whole = _wide({FIX: F, EXTRA: P}, {FIX: P, EXTRA: P}, CompareVerdict.VERIFIED)
    assert [f.rule for f in consistent(short, whole)] == ["compare.counts"]


def test_a_wide_run_s_totals_count_at_least_its_listing() -> None:
    result, whole = _wide({FIX: F, EXTRA: P}, {FIX: P, EXTRA: P}, CompareVerdict.VERIFIED)
    short = result.model_copy(
        update={
            "head": result.head.model_copy(update={"totals": Totals.count(result.head.testcases)})
        }
    )
    found = consistent(short, whole)
    assert [(f.rule, f.message) for f in found] == [
        ("run.totals", "the head run's totals count fewer tests than its listing")
    ]


def _quiet(head: Mapping[str, TestStatus]) -> tuple[CompareResult, Whole]:
    """A wide NOTHING TO PROVE claim: every listed test passes on both sides, and the
    listings hold one result more (``EXTRA``), with its status on head as given."""
    result, whole = _wide({FIX: P, EXTRA: P}, head, CompareVerdict.NOTHING_TO_PROVE)
    runs = {}
    for side in ("before", "head"):
        run = getattr(result, side)
        sandbox = run.sandbox.model_copy(update={"exit_code": 0})
        passing = {"verdict": Verdict.PASS, "testcases": (case(P),), "sandbox": sandbox}
        runs[side] = run.model_copy(update=passing)
    return result.model_copy(update={**runs, "proofs": ()}), whole


def test_nothing_to_prove_is_read_from_the_listings() -> None:
    # the honest wide claim stands; a test past the verdict files' cap that passed on base
    # and is skipped on head (only the listing has it) stands against it
    honest, whole = _quiet({FIX: P, EXTRA: P})
    assert supported(honest, whole) is CompareVerdict.NOTHING_TO_PROVE, claim_findings(
        honest, whole
    )
    hidden, whole = _quiet({FIX: P, EXTRA: S})
    assert any(EXTRA in f.message for f in claim_findings(hidden, whole))
    assert supported(hidden, whole) is CompareVerdict.NOT_PROVEN
