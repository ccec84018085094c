"""The runs stage's hand-off: the runs of one compare, as the pairing and the decision read
them (the proof's re-runs are the proof stage's)."""

from __future__ import annotations

from dataclasses import dataclass

from verify_pr.models.removed import RemovedTest
from verify_pr.verify.runs.suite import SuiteOutcome


@dataclass(frozen=True)
class CompareRuns:
    before: SuiteOutcome  # base's code with the PR's tests
    head: SuiteOutcome  # the PR's code (head merged into base)
    base_own: SuiteOutcome | None = None  # base's code with base's own tests
    # the tests of base gone on head, run from base's file on head's code (``removed``)
    removed_run: SuiteOutcome | None = None
    removed: tuple[RemovedTest, ...] = ()
