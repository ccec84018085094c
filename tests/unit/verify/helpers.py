"""Helpers the verdict-rule tests share."""

from __future__ import annotations

from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult

# Every run status box() was asked for: test_rules checks that its tests walk them all.
SEEN_RUN_STATUS: set[RunStatus] = set()


def box(
    status: RunStatus = RunStatus.COMPLETED,
    exit_code: int | None = 0,
    report: ReportStatus = ReportStatus.RETURNED,
    detail: str = "",
) -> SandboxResult:
    SEEN_RUN_STATUS.add(status)
    return SandboxResult(
        status=status,
        exit_code=exit_code,
        output_truncated=False,
        detail=detail,
        image="img:1",
        timeout_s=60,
        report=report,
    )
