"""Each run's every result, as the policy's rules read it: from the compare artifact's
listings (``models.listing``) when a run is wider than its verdict file, else from the runs'
own testcases; and the checks that hold the listings against the result they belong to.

A verdict file lists at most ``VERDICT_MAX_TESTCASES`` testcases; a run with more (or at that
cap) comes with its listing, every id and its worst status (issue 36). The listing is the
attacker's too, so ``whole`` refuses it (``ListingRefused``), never guesses around it, when:

- a run of the result has none while another has one, or while the run lists testcases up
  to the cap (it may hold more), or a listing names a run the result lacks;
- it disagrees with the run's testcases: an id both name with another status, an id the
  testcases name that it lacks, for a run that lists fewer testcases than the cap (so lists
  them all) an id it adds, or a failure the testcases leave out while they list a test that
  did not fail (a verdict file lists failures first).

With listings, the result's transitions are every one but PASS_TO_PASS and its counts count
every id; ``transition_problems`` re-derives both from the listings. Decoding the listing
files under their bounds is the publish job's (``publish.listing_intake``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from verify_pr.models.compare import CompareResult, Transition
from verify_pr.models.listing import LISTING_FILES, ListingRefused
from verify_pr.models.report import FAILING, TestStatus
from verify_pr.models.transitions import classify_plain, count, tally
from verify_pr.models.verdict import VERDICT_MAX_TESTCASES, VerdictFile
from verify_pr.policy.cases import worst_by_id

DROPPED = frozenset({Transition.PASS_TO_PASS})  # what a wide result's transitions leave out
_NAMES = {"base": "base", "head": "head", "base_own": "base's own"}


@dataclass(frozen=True)
class Whole:
    """Every result of each run the comparison pairs: from the listings when it has them
    (``wide``), else from the runs' own testcases."""

    before: dict[str, TestStatus]
    head: dict[str, TestStatus]
    base_own: dict[str, TestStatus]  # empty when the comparison has no base's own run
    wide: bool = False

    @classmethod
    def of(cls, result: CompareResult) -> Whole:
        own = worst_by_id(result.base_own.testcases) if result.base_own is not None else {}
        return cls(worst_by_id(result.before.testcases), worst_by_id(result.head.testcases), own)


@dataclass(frozen=True)
class Compared:
    """What a comparison's rules read: the result file and each run's every result."""

    result: CompareResult
    whole: Whole

    @classmethod
    def of(cls, result: CompareResult, whole: Whole | None = None) -> Compared:
        """``whole`` from the listings (``whole``), else from the runs' testcases."""
        return cls(result, whole or Whole.of(result))


def _runs(result: CompareResult) -> dict[str, VerdictFile | None]:
    return {"base": result.before, "head": result.head, "base_own": result.base_own}


def whole(result: CompareResult, listings: Mapping[str, dict[str, TestStatus]]) -> Whole:
    """Each run's every result, the listings (by key of ``LISTING_FILES``) held against the
    runs; ``ListingRefused``."""
    runs = _runs(result)
    if not listings:
        capped = [k for k, v in runs.items() if v and len(v.testcases) >= VERDICT_MAX_TESTCASES]
        if capped:
            raise ListingRefused(
                f"the {_NAMES[capped[0]]} run lists {VERDICT_MAX_TESTCASES} testcases, its "
                "file's cap, and the artifact has no listing of its every result"
            )
        return Whole.of(result)
    for key, run in runs.items():
        name = LISTING_FILES[key]
        if run is None and key in listings:
            raise ListingRefused(f"{name} lists a run the comparison does not have")
        if run is not None and key not in listings:
            raise ListingRefused(f"the artifact has listings but not {name}")
        if run is not None:
            _agree(f"{name} and the {_NAMES[key]} run's testcases", run, listings[key])
    return Whole(listings["base"], listings["head"], listings.get("base_own", {}), wide=True)


def _agree(what: str, run: VerdictFile, listing: Mapping[str, TestStatus]) -> None:
    listed = worst_by_id(run.testcases)
    apart = [i for i, s in listed.items() if listing.get(i) is not s]
    if apart:
        raise ListingRefused(f"{what} disagree on {len(apart)} test(s), e.g. {apart[0][:150]}")
    if len(run.testcases) < VERDICT_MAX_TESTCASES and len(listing) != len(listed):
        raise ListingRefused(
            f"{what} disagree: the run lists all its {len(run.testcases)} testcases, the "
            f"listing {len(listing)} ids"
        )
    # a verdict file lists failures first: one it leaves out means it lists nothing else
    if any(s not in FAILING for s in listed.values()):
        hidden = next((i for i, s in listing.items() if s in FAILING and i not in listed), None)
        if hidden is not None:
            raise ListingRefused(
                f"{what} disagree: the listing has a failure the testcases leave out while "
                f"they list passes ({hidden[:150]})"
            )


def transition_problems(result: CompareResult, runs: Whole) -> list[str]:
    """The result's transitions against those the runs imply (every id paired; a wide result
    lists every transition but PASS_TO_PASS)."""
    rows = classify_plain(runs.before, runs.head)
    expected = [r for r in rows if r[3] not in DROPPED] if runs.wide else rows
    claimed = [(t.id, t.before, t.head, t.transition) for t in result.transitions]
    source = "listings" if runs.wide else "embedded base and head runs"
    if claimed != expected:
        return [f"the transitions do not follow from the {source}"]
    return []


def count_problems(result: CompareResult, runs: Whole) -> list[str]:
    """The result's counts against its transitions; a wide result's transitions leave
    PASS_TO_PASS out, so its PASS_TO_PASS count is held against the listings' instead."""
    expected = count(result.transitions)
    if runs.wide:
        rows = classify_plain(runs.before, runs.head)
        expected = expected.model_copy(update={"pass_to_pass": tally(rows).pass_to_pass})
    if expected != result.counts:
        return ["the counts do not match the transitions"]
    return []


def file_of(test_id: str, cases: Mapping[str, str | None]) -> str | None:
    """The file of a test: its testcase's, else the id's first part (``make_test_id`` joins
    file, class and name with ``::``); None when neither tells."""
    if test_id in cases:
        return cases[test_id]
    file, sep, _ = test_id.partition("::")
    return file if sep and file else None


def totals_problems(
    verdict: VerdictFile, listing: Mapping[str, TestStatus], side: str
) -> list[str]:
    """A wide run's totals count its whole report (a duplicate id counted each time) where its
    verdict file lists only some testcases: each status counts at least the listing's ids of
    that status (their worst), and the total at least the testcases listed."""
    if verdict.totals is None:
        return []
    totals = verdict.totals.model_dump()
    ids = Counter(
        s.value.replace("-", "_") for s in listing.values() if s is not TestStatus.NOT_RUN
    )
    short = [k for k, n in ids.items() if totals.get(k, 0) < n]
    if short or verdict.totals.total < sum(ids.values()):
        return [f"{side}'s totals count fewer tests than its listing"]
    return []
