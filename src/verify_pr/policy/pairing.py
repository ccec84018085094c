"""What stands against the PR in a pairing of before with head (and base's own run).

The verifier computes these lists from its runs (``verify.pairing.pair``) and the publish job
from the artifact's embedded runs (``verdict``): the same function over the same statuses, so
the two cannot disagree on what a regression, a gone, newly skipped or newly expected-to-fail
test is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verify_pr.models.compare import TestTransition, Transition
from verify_pr.models.report import EXECUTED, FAILING, TestStatus


@dataclass(frozen=True)
class Findings:
    """Every list a reason or the summary names."""

    by_kind: dict[Transition, list[str]]
    regressed: list[str]
    gone: list[str]
    newly_skipped: list[str]
    newly_expected: list[str]  # ran on base, marked to fail after the PR (xfail, test.failing)
    test_changed: list[str]
    added_failing: list[str]


def findings(
    transitions: Sequence[TestTransition],
    before: Mapping[str, TestStatus],
    head: Mapping[str, TestStatus],
    base_own: Mapping[str, TestStatus],
) -> Findings:
    by_kind: dict[Transition, list[str]] = {kind: [] for kind in Transition}
    for item in transitions:
        by_kind[item.transition].append(item.id)
    regressed = list(by_kind[Transition.PASS_TO_FAIL])
    regressed += sorted(
        i
        for i, s in base_own.items()
        if s is TestStatus.PASSED and head.get(i) in FAILING and i not in regressed
    )
    gone = list(by_kind[Transition.REMOVED])
    gone += sorted(i for i in base_own if i not in before and i not in head and i not in gone)
    newly_skipped = _newly(TestStatus.SKIPPED, before, head, base_own)
    newly_expected = _newly(TestStatus.EXPECTED_FAILURE, before, head, base_own)
    test_changed = sorted(
        i for i, s in base_own.items() if s in FAILING and before.get(i) is TestStatus.PASSED
    )
    added_failing = [i for i in by_kind[Transition.ADDED] if head.get(i) in FAILING]
    return Findings(
        by_kind, regressed, gone, newly_skipped, newly_expected, test_changed, added_failing
    )


def _newly(
    status: TestStatus,
    before: Mapping[str, TestStatus],
    head: Mapping[str, TestStatus],
    base_own: Mapping[str, TestStatus],
) -> list[str]:
    """Base tests that ran (in base's own run or with the PR's tests) and now have ``status``:
    on head, or already on base's code once the PR's version of the test is in place."""
    found = sorted(
        i
        for i, s in head.items()
        if s is status and (before.get(i) in EXECUTED or base_own.get(i) in EXECUTED)
    )
    return found + sorted(
        i
        for i, s in before.items()
        if s is status and base_own.get(i) in EXECUTED and i not in found
    )
