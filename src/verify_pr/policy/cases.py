"""One status per test id, the worst kept: how every rule reads a run's testcases."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from verify_pr.models.report import EXECUTED, FAILING, STATUS_RANK, TestCase, TestStatus


def worst_by_id(cases: Iterable[TestCase]) -> dict[str, TestStatus]:
    """One status per id, the worst kept (as ``TestReport.worst_by_id``)."""
    worst: dict[str, TestStatus] = {}
    for case in cases:
        seen = worst.get(case.id)
        if seen is None or STATUS_RANK[case.status] > STATUS_RANK[seen]:
            worst[case.id] = case.status
    return worst


def executed_none(statuses: Iterable[TestStatus]) -> bool:
    """No test ran (every one skipped, not run, or none at all): a run that cannot be evidence."""
    return not any(s in EXECUTED for s in statuses)


def exit_disagrees(statuses: Iterable[TestStatus], exit_code: int | None) -> bool:
    """The runner's exit code says otherwise than its report: exit 0 with a failing test, or
    another code with none."""
    return any(s in FAILING for s in statuses) == (exit_code == 0)


def shown(items: Sequence[str]) -> str:
    """The first three, cut, and how many more."""
    names = ", ".join(i[:150] for i in items[:3])
    return names + (f" and {len(items) - 3} more" if len(items) > 3 else "")
