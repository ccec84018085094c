"""The removed tests a comparison lets stand, re-derived from its own data.

A test of base gone on head (a REMOVED transition, or a test of base's own run on neither
side) stands against VERIFIED and NOTHING_TO_PROVE unless the comparison's embedded removed
run (base's version of its file by id over head's code) shows it passing on head, or failing
in its own body as a parametrized case of a test that has a new FAIL_TO_PASS case
(``models.removed``, as the verifier judged it). What the result lists as excused must be
excused by that run, and the run must agree with itself. Each run's statuses are read
through ``whole`` (its listing when it is wider than its verdict file).
"""

from __future__ import annotations

from verify_pr.models.compare import CompareResult, Transition
from verify_pr.models.removed import excused, judge
from verify_pr.policy.cases import worst_by_id
from verify_pr.policy.whole import Whole


def gone_ids(result: CompareResult, whole: Whole | None = None) -> tuple[list[str], list[str]]:
    """(REMOVED transitions, base's own tests on neither side): ``policy.pairing``'s gone
    tests, split by where they were seen."""
    removed = [t.id for t in result.transitions if t.transition is Transition.REMOVED]
    if result.base_own is None:
        return removed, []
    runs = whole or Whole.of(result)
    before, head, own = runs.before, runs.head, runs.base_own
    return removed, sorted(i for i in own if i not in before and i not in head)


def unexcused(result: CompareResult, ids: list[str], whole: Whole | None = None) -> list[str]:
    """Of ``ids`` (gone tests), those the embedded removed run does not excuse."""
    if result.removed_run is None or not ids:
        return ids
    on_head = worst_by_id(result.removed_run.testcases)
    proofs = [t.id for t in result.transitions if t.transition is Transition.FAIL_TO_PASS]
    of_base = (whole or Whole.of(result)).base_own
    ok = excused(judge(ids, on_head, proofs, of_base))
    return [i for i in ids if i not in ok]


def claim_problems(result: CompareResult, whole: Whole | None = None) -> list[str]:
    """Removed tests the result calls excused that its own removed run does not excuse."""
    claimed = excused(result.removed_tests)
    if not claimed:
        return []
    if result.removed_run is None:
        return [f"{len(claimed)} removed test(s) are excused without a removed run"]
    removed, own = gone_ids(result, whole)
    gone = [*removed, *own]
    wrong = sorted(i for i in claimed if i not in gone or i in unexcused(result, gone, whole))
    if not wrong:
        return []
    return [f"{len(wrong)} removed test(s) are excused but their run does not show it"]
