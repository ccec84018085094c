"""Classify what the engine saw: COMPLETED, TIMEOUT or ERROR, with an honest detail."""

from __future__ import annotations

from dataclasses import dataclass

from verify_pr.models.sandbox import ReportStatus, RunStatus
from verify_pr.sandbox.capture import parse_trailer
from verify_pr.sandbox.engine import EngineRun
from verify_pr.sandbox.spool import ReportSpool
from verify_pr.sandbox.trailer import TrailerError, TrailerKind

_KILLED_BY_TIMEOUT = (124, 137)


@dataclass(frozen=True)
class Outcome:
    status: RunStatus
    exit_code: int | None
    detail: str
    output: bytes
    output_truncated: bool
    report: ReportSpool | None
    report_status: ReportStatus
    coverage: ReportSpool | None = None
    coverage_status: ReportStatus = ReportStatus.NOT_REQUESTED


def classify(
    run: EngineRun,
    timeout_s: int,
    max_output: int,
    report_asked: bool,
    *,
    coverage_asked: bool = False,
) -> Outcome:
    cap = run.capture
    not_returned = ReportStatus.UNKNOWN if report_asked else ReportStatus.NOT_REQUESTED
    coverage: ReportSpool | None = None
    coverage_status = ReportStatus.UNKNOWN if coverage_asked else ReportStatus.NOT_REQUESTED
    try:
        trailer = parse_trailer(cap, run.nonce)
    except TrailerError as exc:
        output_end = cap.total
        status, exit_code, detail = _without_trailer(run, str(exc))
        report, report_status = None, not_returned
    else:
        output_end = trailer.output_end
        report = trailer.report
        report_status = _report_status(trailer.report_state, report, report_asked)
        coverage = trailer.coverage
        coverage_status = _report_status(trailer.coverage_state, coverage, coverage_asked)
        if trailer.kind is TrailerKind.WRAPPER:
            status, exit_code = RunStatus.ERROR, None
            detail = f"the sandbox wrapper failed ({trailer.code}) before the check could run"
            detail += _stderr_note(run)
        else:
            status, exit_code, detail = _with_rc(run, int(trailer.code), timeout_s)
    truncated = output_end > max_output
    output = bytes(cap.head[: min(output_end, max_output)])
    if truncated:
        detail += f"; output cut at {max_output} bytes"
    return Outcome(
        status,
        exit_code,
        detail,
        output,
        truncated,
        report,
        report_status,
        coverage,
        coverage_status,
    )


def _with_rc(run: EngineRun, rc: int, timeout_s: int) -> tuple[RunStatus, int | None, str]:
    if rc != run.docker_exit:
        return (
            RunStatus.ERROR,
            None,
            f"the sentinel's exit code {rc} disagrees with the container's {run.docker_exit}",
        )
    if rc in _KILLED_BY_TIMEOUT and run.elapsed_s >= timeout_s:
        return RunStatus.TIMEOUT, rc, f"the check was killed at its {timeout_s} s timeout"
    detail = f"the check exited {rc}"
    if run.oom_killed:
        detail += " and the container hit its memory limit (OOM kill)"
    return RunStatus.COMPLETED, rc, detail


def _without_trailer(run: EngineRun, why: str) -> tuple[RunStatus, int | None, str]:
    if run.watchdog_fired:
        return (
            RunStatus.TIMEOUT,
            None,
            f"the host watchdog killed the container {run.watchdog_after_s} s after "
            "start: the in-container timeout did not end it",
        )
    detail = f"{why}; container exit {run.docker_exit}"
    if run.oom_killed:
        detail += "; the container hit its memory limit (OOM kill)"
    return RunStatus.ERROR, None, detail + _stderr_note(run)


def _stderr_note(run: EngineRun) -> str:
    text = bytes(run.capture.stderr[-512:]).decode("utf-8", "replace").strip()
    return f"; stderr: {text}" if text else ""


def _report_status(state: str, report: ReportSpool | None, asked: bool) -> ReportStatus:
    if not asked:
        return ReportStatus.NOT_REQUESTED
    try:
        status = ReportStatus(state)
    except ValueError:
        return ReportStatus.UNKNOWN
    if status is ReportStatus.NOT_REQUESTED or (status is ReportStatus.RETURNED and report is None):
        return ReportStatus.UNKNOWN
    return status
