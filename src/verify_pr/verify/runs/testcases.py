"""One run's tests as the comparison pairs them: the worst case per id, and load failures.

A test file that cannot load on base's code (a collection error, a failed suite) is reported as
one stand-in case; ``expand_load_failures`` turns it into a failure of each of head's tests of
that file, so they pair as FAIL_TO_PASS rather than as ADDED.
"""

from __future__ import annotations

from collections.abc import Mapping

from verify_pr.models.report import (
    STATUS_RANK,
    TestCase,
    TestReport,
    TestStatus,
    Totals,
)
from verify_pr.models.report import (
    is_load_failure as is_load_failure,  # moved to models.report (publish reads it too)
)
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.policy.cases import worst_by_id
from verify_pr.verify.runs.missing_deps import DEPENDENCIES_PREFIX, NOT_PROVEN_PREFIX


def worst(report: TestReport | None) -> dict[str, TestStatus]:
    return report.worst_by_id() if report is not None else {}


def worst_cases(verdict: VerdictFile) -> dict[str, TestCase]:
    """One case per id, the worst status kept (as the publish job recomputes it)."""
    found: dict[str, TestCase] = {}
    for case in verdict.testcases:
        seen = found.get(case.id)
        if seen is None or STATUS_RANK[case.status] > STATUS_RANK[seen.status]:
            found[case.id] = case
    return found


def statuses(verdict: VerdictFile | None) -> dict[str, TestStatus]:
    """One status per id, the worst kept: the policy's reading (``policy.cases``)."""
    return worst_by_id(verdict.testcases) if verdict is not None else {}


def _failed_on_base(before: VerdictFile) -> VerdictFile:
    """A run calls a test file that cannot import a module its tree lacks NOT PROVEN (the
    image's gap: ``missing_deps``). In the before run that tree is base's code with head's
    tests, and the module is most often the PR's new one: a failure on base, as compare
    expects (``Side.load_errors_expected``), so the embedded before run is FAIL."""
    return image_gap_as_fail(before, "the before run (base's code, head's tests)")


def image_gap_as_fail(run: VerdictFile, who: str, why: str = "") -> VerdictFile:
    """``run``'s NOT PROVEN for test files that cannot import a module the tree lacks, as the
    FAIL its report shows (its only failures are those files); any other verdict unchanged.
    Compare asks it for head and base's own run only when those files predate the PR."""
    if run.verdict is not Verdict.NOT_PROVEN or not run.reasons:
        return run
    first, *rest = run.reasons
    if not first.startswith(NOT_PROVEN_PREFIX):
        return run
    said = f"{who} could not import " + first.removeprefix(NOT_PROVEN_PREFIX) + why
    kept = [r for r in rest if not r.startswith(DEPENDENCIES_PREFIX)]
    return run.model_copy(update={"verdict": Verdict.FAIL, "reasons": (said[:500], *kept)})


def expand_load_failures(
    before: VerdictFile, head: VerdictFile, texts: Mapping[str, str] | None = None
) -> VerdictFile:
    """A test whose file cannot load on base's code failed there: each head test of such a
    file gets an ``error`` case in the before run, with the load error as its message.

    The stand-in is dropped once its file's tests stand in for it; a file with no test on
    head keeps it. The result is what the comparison embeds as its before run.
    """
    before = _failed_on_base(before)
    stand_ins = {c.file: c for c in before.testcases if is_load_failure(c)}
    if not stand_ins:
        return before
    known = {c.id for c in before.testcases}
    added: list[TestCase] = []
    covered: set[str] = set()
    for case in worst_cases(head).values():
        stand_in = stand_ins.get(case.file)
        if stand_in is None or case.id in known or is_load_failure(case):
            continue
        covered.add(stand_in.id)
        added.append(
            case.model_copy(
                update={
                    "status": TestStatus.ERROR,
                    "message": "the test file could not load on base's code: "
                    + ((texts or {}).get(case.file or "") or stand_in.message or "no message"),
                    "duration_s": None,
                }
            )
        )
    cases = [c for c in before.testcases if c.id not in covered] + added
    if not added or len(cases) > 10_000:
        return before
    return before.model_copy(update={"testcases": tuple(cases), "totals": Totals.count(cases)})
