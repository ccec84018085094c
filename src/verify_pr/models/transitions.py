"""How a test moved between two runs, and the counts: pure functions over the models.

Both sides need them: the verifier classifies, and the publish job (which must load nothing of
the verifier) recomputes the same classification to check the artifact's own claims.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from verify_pr.models.compare import TestTransition, Transition, TransitionCounts
from verify_pr.models.report import FAILING, TestStatus


def classify_one(base: TestStatus | None, head: TestStatus | None) -> Transition:
    if base is None and head is None:
        raise ValueError("a test must exist on at least one side")
    if base is None:
        return Transition.ADDED
    if head is None:
        return Transition.REMOVED
    if TestStatus.SKIPPED in (base, head):
        return Transition.SKIPPED
    if TestStatus.EXPECTED_FAILURE in (base, head):
        return Transition.EXPECTED_FAILURE  # neither a pass nor a failure: no proof either way
    base_failed, head_failed = base in FAILING, head in FAILING
    if base_failed:
        return Transition.FAIL_TO_FAIL if head_failed else Transition.FAIL_TO_PASS
    return Transition.PASS_TO_FAIL if head_failed else Transition.PASS_TO_PASS


def classify(
    base: Mapping[str, TestStatus], head: Mapping[str, TestStatus]
) -> list[TestTransition]:
    """Pair by id (worst status per id already taken), sorted by id."""
    return [
        TestTransition(
            id=test_id,
            base=base.get(test_id),
            head=head.get(test_id),
            transition=classify_one(base.get(test_id), head.get(test_id)),
        )
        for test_id in sorted(set(base) | set(head))
    ]


def count(transitions: Sequence[TestTransition]) -> TransitionCounts:
    tally = dict.fromkeys(Transition, 0)
    for item in transitions:
        tally[item.transition] += 1
    return TransitionCounts(**{kind.value.lower(): n for kind, n in tally.items()})


Paired = tuple[str, TestStatus | None, TestStatus | None, Transition]
"""One id, its status on each side and its transition: ``classify``'s row without a model."""


def classify_plain(base: Mapping[str, TestStatus], head: Mapping[str, TestStatus]) -> list[Paired]:
    """``classify`` as plain tuples, sorted by id: a quarter of a million ids in well under a
    second, where a model per id takes seconds (bench/listing_bench.py)."""
    return [
        (i, base.get(i), head.get(i), classify_one(base.get(i), head.get(i)))
        for i in sorted(base.keys() | head.keys())
    ]


def tally(rows: Sequence[Paired]) -> TransitionCounts:
    """``count`` over plain rows."""
    counted = Counter(row[3] for row in rows)
    return TransitionCounts(**{kind.value.lower(): counted[kind] for kind in Transition})


def models(
    rows: Sequence[Paired], drop: frozenset[Transition] = frozenset()
) -> list[TestTransition]:
    """The rows as ``TestTransition`` models (what the result file lists), but those of ``drop``."""
    return [
        TestTransition(id=i, base=b, head=h, transition=kind)
        for i, b, h, kind in rows
        if kind not in drop
    ]
