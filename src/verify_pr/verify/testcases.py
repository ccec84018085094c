"""One run's tests as the comparison pairs them: the worst case per id, and load failures.

A test file that cannot load on base's code (a collection error, a failed suite) is reported as
one stand-in case; ``expand_load_failures`` turns it into a failure of each of head's tests of
that file, so they pair as FAIL_TO_PASS rather than as ADDED.
"""

from __future__ import annotations

from collections.abc import Mapping

from verify_pr.models.report import FAILING, STATUS_RANK, TestCase, TestReport, TestStatus, Totals
from verify_pr.models.verdict import VerdictFile


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
    if verdict is None:
        return {}
    return {i: c.status for i, c in worst_cases(verdict).items()}


LOAD_ERROR_NAMES = ("(test file failed to run)",)


def is_load_failure(case: TestCase) -> bool:
    """A runner's stand-in for a test file that could not load (pytest collection error,
    jest/vitest suite failure): it stands for every test of that file."""
    if case.status not in FAILING or case.file is None:
        return False
    if case.classname is None:  # pytest: an errored module; a JS top-level test only fails
        return case.status is TestStatus.ERROR or case.name in LOAD_ERROR_NAMES
    return case.name == case.classname  # vitest's stand-in for an unloadable file


def expand_load_failures(
    before: VerdictFile, head: VerdictFile, texts: Mapping[str, str] | None = None
) -> VerdictFile:
    """A test whose file cannot load on base's code failed there: each head test of such a
    file gets an ``error`` case in the before run, with the load error as its message.

    The stand-in is dropped once its file's tests stand in for it; a file with no test on
    head keeps it. The result is what the comparison embeds as its before run.
    """
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
