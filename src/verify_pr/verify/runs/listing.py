"""Each run's every result, as the pairing reads it, and the listings the artifact carries.

A verdict file lists at most ``VERDICT_MAX_TESTCASES`` testcases (failures first); a run with
more results is paired from its whole report, and the comparison then carries each run's
compact listing (``models.listing``: every id with its worst status) for the publish job to
re-derive the transitions from. The result file's transitions then leave PASS_TO_PASS out
(``DROPPED``); its counts count every id (issue 36: a suite of 250,000 tests paired whole).
"""

from __future__ import annotations

from dataclasses import dataclass

from verify_pr.models.compare import Transition
from verify_pr.models.listing import LISTING_FILES, ListingRefused, decode, encode
from verify_pr.models.report import TestStatus
from verify_pr.models.verdict import VerdictFile
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.runs.testcases import statuses

DROPPED = frozenset({Transition.PASS_TO_PASS})
_NAMES = {"base": "before", "head": "head", "base_own": "base's own"}


@dataclass(frozen=True)
class Whole:
    """Every result's status per run (keys of ``LISTING_FILES``), and what each verdict lists."""

    runs: dict[str, dict[str, TestStatus]]
    listed: dict[str, dict[str, TestStatus]]
    wide: bool  # a run has more results than its verdict file lists

    @property
    def before(self) -> dict[str, TestStatus]:
        return self.runs["base"]

    @property
    def head(self) -> dict[str, TestStatus]:
        return self.runs["head"]

    @property
    def base_own(self) -> dict[str, TestStatus]:
        return self.runs.get("base_own", {})


def _run(outcome: SuiteOutcome, verdict: VerdictFile) -> tuple[dict[str, TestStatus], bool]:
    """The run's statuses: its verdict file's (as compared), or its whole report's when the
    verdict file lists fewer results than the report holds."""
    report = outcome.report
    if report is None or len(report.testcases) <= len(outcome.verdict.testcases):
        return statuses(verdict), False
    return report.worst_by_id(), True


def whole(
    before: SuiteOutcome,
    before_file: VerdictFile,
    head: SuiteOutcome,
    base_own: SuiteOutcome | None,
) -> Whole:
    """The runs to pair: before (``before_file``: its load failures expanded), head, base's own."""
    sides = {"base": (before, before_file), "head": (head, head.verdict)}
    if base_own is not None:
        sides["base_own"] = (base_own, base_own.verdict)
    runs, listed, wide = {}, {}, False
    for key, (outcome, verdict) in sides.items():
        runs[key], over = _run(outcome, verdict)
        listed[key] = statuses(verdict)
        wide = wide or over
    return Whole(runs, listed, wide)


def encoded(found: Whole) -> tuple[dict[str, bytes] | None, list[str]]:
    """Each run's listing when a run is wider than its verdict file (else None), and why the
    runs cannot be paired whole: a listing over its bounds, or a verdict file whose testcases
    disagree with the listing (the publish job would refuse it)."""
    if not found.wide:
        return None, []
    listings: dict[str, bytes] = {}
    reasons: list[str] = []
    for key, run in found.runs.items():
        name = _NAMES[key]
        apart = [i for i, s in found.listed[key].items() if run.get(i) is not s]
        if apart:
            reasons.append(
                f"the {name} run's result file and its listing disagree on {len(apart)} "
                "test(s) (a worse duplicate left out of the result file): it cannot be paired whole"
            )
        data = encode(run)
        try:
            decode(data)
        except ListingRefused as exc:
            reasons.append(
                f"the {name} run's listing is refused ({exc}): it cannot be paired whole"
            )
        listings[LISTING_FILES[key]] = data
    return listings, reasons
