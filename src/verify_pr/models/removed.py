"""A test of base that is gone on head, judged by its run on head: pure, for both sides.

The verifier runs each removed test by id from base's version of its file over head's code
(``verify.removed``); the publish job re-derives the same standings from that run's embedded
verdict and the transitions (``policy``). Standings:
- PASSED: it still passes on the PR's code: its removal (a rename, a rewrite) hides nothing.
- CHANGED: a parametrized case that fails on the PR's code in its own body, where the same
  test (its id without the parameters, ``test_f[1-2]`` -> ``test_f``) has a case new in the
  PR (in no run of base's own tests) that fails on base's code and passes on head:
  an expectation the PR changed where the value is part of the id. The same evidence as an
  expectation changed under a stable id, which is already a FAIL_TO_PASS (base's own run
  passed, the PR's version of the test fails on base's code): a proof the reviewer must see.
- FAILED: it fails on the PR's code and nothing of its name proves the fix: the PR removed
  (or renamed) a test its code breaks.
- NOT_RUN: it did not run there (its file needs what the PR deleted, a runner the run cannot
  select by id, skipped): gone, as before this run existed.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from enum import StrEnum

from verify_pr.models.base import BoundaryModel
from verify_pr.models.report import FAILING, IdText, TestStatus


class RemovedStanding(StrEnum):
    PASSED = "PASSED"
    CHANGED = "CHANGED_EXPECTATION"
    FAILED = "FAILED"
    NOT_RUN = "NOT_RUN"


class RemovedTest(BoundaryModel):
    """One test of base gone on head, and its status when run from base's file on head."""

    id: IdText
    on_head: TestStatus | None  # None: it did not run
    standing: RemovedStanding


def test_name(test_id: str) -> str:
    """A test's id without its parameters: pytest's ``file::Class::name[params]``."""
    return test_id.split("[", 1)[0]


def judge(
    gone: Sequence[str],
    on_head: Mapping[str, TestStatus],
    proofs: Iterable[str],
    of_base: Container[str],
) -> tuple[RemovedTest, ...]:
    """Each gone id's standing from its status on head (absent: not run), the ids that prove
    the fix, and the ids of base's own run (a proof among them is no new case)."""
    proven = {test_name(p) for p in proofs if p not in of_base}
    found = []
    for test_id in gone:
        status = on_head.get(test_id)
        if status is TestStatus.PASSED:
            standing = RemovedStanding.PASSED
        elif status in FAILING:
            # in its own body (an error in setup is no expectation), a case of a proven test
            named = status is TestStatus.FAILED and "[" in test_id
            changed = named and test_name(test_id) in proven
            standing = RemovedStanding.CHANGED if changed else RemovedStanding.FAILED
        else:
            standing = RemovedStanding.NOT_RUN
        found.append(RemovedTest(id=test_id, on_head=status, standing=standing))
    return tuple(found)


def excused(tests: Iterable[RemovedTest]) -> set[str]:
    """The removed tests that stand against nothing: they pass on head, or an expectation
    changed (named in the verdict)."""
    return {t.id for t in tests if t.standing in (RemovedStanding.PASSED, RemovedStanding.CHANGED)}
