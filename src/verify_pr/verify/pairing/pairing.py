"""Before against head, paired once: the transitions, the proofs, and what stands against the PR.

``pair`` is computed once from the whole reports; the re-runs (``rerun.confirm``), the verdict
(``decision.decide``), the result file and the summary's lists all take its ``Pairing`` rather
than classifying the runs again, so what the summary lists is what the verdict used. What
stands against the PR (``Findings``) is the policy's (``policy.pairing``): the publish job
computes it from the artifact with the same function.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verify_pr.models.compare import MAX_TRANSITIONS, TestTransition, Transition, TransitionCounts
from verify_pr.models.report import TestStatus
from verify_pr.models.transitions import classify_plain, models, tally
from verify_pr.models.verdict import VerdictFile
from verify_pr.policy.pairing import Findings, findings
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.runs.testcases import (
    expand_load_failures,
    is_load_failure,
    worst_cases,
)

__all__ = ["Findings", "Pairing", "findings", "pair"]


@dataclass(frozen=True)
class Pairing:
    """Before against head, computed once from the whole reports and passed on: the
    transitions, the FAIL_TO_PASS tests that can prove the fix, and those that cannot."""

    before: VerdictFile  # before's verdict with load failures expanded onto head's tests
    transitions: list[TestTransition]
    proofs: list[str]  # FAIL_TO_PASS ids that can prove the fix
    discounted: dict[str, str]  # FAIL_TO_PASS ids that cannot, with why
    not_whole: list[str]  # why a side could not be paired whole (each a reason)
    findings: Findings  # what stands against the PR: the verdict's rules and the summary's lists
    counts: TransitionCounts  # of every id paired (``transitions`` may leave PASS_TO_PASS out)
    # each run's listing (``models.listing``, by its file name in LISTING_FILES) when a run has more
    # results than its verdict file lists: then ``transitions`` holds all but PASS_TO_PASS
    listings: dict[str, bytes] | None = None
    # before's and head's every result (id: worst status), as paired: what "broke nothing"
    # reads (``nothing.gaps``), never a verdict file's capped testcases
    runs: tuple[dict[str, TestStatus], dict[str, TestStatus]] | None = None


def pair(
    before: SuiteOutcome,
    head: SuiteOutcome,
    base_own: SuiteOutcome | None = None,
    mixed: Sequence[str] = (),
    doubtful: Mapping[str, str] | None = None,
) -> Pairing:
    """Pair the runs. A FAIL_TO_PASS test is discounted (never a proof) when it lives in a
    file that is code and test at once (``mixed``), or when it passed in base's own run and
    failed on before only outside its own body: its file could not load, or its setup erred
    (a fixture, an autouse guard or an import the PR changed around an untouched test).
    ``doubtful``: test files whose tests' status could be inverted by a marker the runner
    does not report (``bun_markers``), with why: no test of theirs proves anything."""
    from verify_pr.verify.runs import listing
    from verify_pr.verify.runs.loaderrors import load_error_texts

    texts = load_error_texts(before.run.report)
    before_file = expand_load_failures(before.verdict, head.verdict, texts)
    whole = listing.whole(before, before_file, head, base_own)
    was, now, own = whole.before, whole.head, whole.base_own
    rows = classify_plain(was, now)
    transitions = models(rows, listing.DROPPED if whole.wide else frozenset())
    listed_before = {c.id for c in before.verdict.testcases}
    head_cases, before_cases = worst_cases(head.verdict), worst_cases(before_file)
    mixed_set = set(mixed)
    proofs: list[str] = []
    discounted: dict[str, str] = {}
    for item in transitions:
        if item.transition is not Transition.FAIL_TO_PASS:
            continue
        case = head_cases.get(item.id) or before_cases.get(item.id)
        if case is not None and case.file in mixed_set:
            discounted[item.id] = f"its file {case.file} is code the PR changes, and a test"
        elif case is not None and case.file and case.file in (doubtful or {}):
            discounted[item.id] = (doubtful or {})[case.file]
        elif own.get(item.id) is TestStatus.PASSED and item.id not in listed_before:
            discounted[item.id] = (
                "it passed in base's own run; on base's code with the PR's tests only its "
                "file failed to load"
            )
        elif own.get(item.id) is TestStatus.PASSED and was.get(item.id) is TestStatus.ERROR:
            discounted[item.id] = (
                "it passed in base's own run; with the PR's tests it errored outside its "
                "own body (setup or a fixture)"
            )
        else:
            proofs.append(item.id)
    listings, not_whole = listing.encoded(whole)
    if len(transitions) > MAX_TRANSITIONS:
        not_whole.append(
            f"{len(transitions)} tests changed status or side, more than the {MAX_TRANSITIONS} "
            "a result file lists: they cannot be paired whole"
        )
    if before_file is before.verdict and _unexpanded(before.verdict, head.verdict):
        not_whole.append(
            "the before run's load failures could not be expanded onto head's tests "
            "within the result's cap: it cannot be paired whole"
        )
    found = findings(transitions, was, now, own)
    return Pairing(
        before_file,
        transitions,
        proofs,
        discounted,
        not_whole,
        found,
        tally(rows),
        listings,
        (was, now),
    )


def _unexpanded(before: VerdictFile, head: VerdictFile) -> bool:
    """A load failure of before stands for head tests that were not expanded onto it."""
    stand_ins = {c.file for c in before.testcases if is_load_failure(c)}
    known = {c.id for c in before.testcases}
    return any(
        c.file in stand_ins and c.id not in known and not is_load_failure(c) for c in head.testcases
    )
