"""Classification of what the engine saw, over every status."""

from __future__ import annotations

import pytest

from verify_pr.models.sandbox import ReportStatus, RunStatus
from verify_pr.sandbox.capture import StreamCapture
from verify_pr.sandbox.engine import EngineRun
from verify_pr.sandbox.outcome import classify

NONCE = "0123456789abcdef0123456789abcdef"


def run(
    stdout: bytes,
    docker_exit: int = 0,
    *,
    oom: bool = False,
    fired: bool = False,
    elapsed: float = 1.0,
    stderr: bytes = b"",
) -> EngineRun:
    cap = StreamCapture(head_limit=100, nonce=NONCE)
    cap.add_stdout(stdout)
    cap.add_stderr(stderr)
    return EngineRun(cap, NONCE, docker_exit, oom, fired, elapsed, watchdog_after_s=25)


def tr(kind: str, code: str, state: str = "none", report: bytes = b"") -> bytes:
    return (
        f"\nVPR1 {NONCE} {kind} {code} {state} {len(report)}\n".encode()
        + report
        + f"\nVPR1 {NONCE} END\n".encode()
    )


def test_completed_with_exit_code() -> None:
    o = classify(run(b"ok\n" + tr("RC", "1"), 1), 10, 100, False)
    assert (o.status, o.exit_code, o.output) == (RunStatus.COMPLETED, 1, b"ok\n")
    assert o.report_status is ReportStatus.NOT_REQUESTED


def test_sentinel_disagreeing_with_docker_exit_is_error() -> None:
    o = classify(run(tr("RC", "0"), 1), 10, 100, False)
    assert o.status is RunStatus.ERROR and o.exit_code is None
    assert "disagrees" in o.detail


def test_no_sentinel_is_error_never_completed() -> None:
    o = classify(run(b"VPR1 fake RC 0 none 0\n", 0), 10, 100, False)
    assert o.status is RunStatus.ERROR and o.exit_code is None
    assert o.output == b"VPR1 fake RC 0 none 0\n"


def test_wrapper_failure_is_error_with_stderr() -> None:
    o = classify(run(tr("WRAPPER", "copy"), 125, stderr=b"cp: denied"), 10, 100, True)
    assert o.status is RunStatus.ERROR and o.exit_code is None
    assert "copy" in o.detail and "cp: denied" in o.detail
    assert (o.report_status, o.report) == (ReportStatus.UNKNOWN, None)


@pytest.mark.parametrize("rc", [124, 137])
def test_timeout_needs_kill_code_and_the_time_spent(rc: int) -> None:
    assert classify(run(tr("RC", str(rc)), rc, elapsed=10.2), 10, 100, False).status == (
        RunStatus.TIMEOUT
    )
    early = classify(run(tr("RC", str(rc)), rc, elapsed=2.0), 10, 100, False)
    assert (early.status, early.exit_code) == (RunStatus.COMPLETED, rc)


def test_watchdog_is_timeout_without_exit_code() -> None:
    o = classify(run(b"", 137, fired=True, elapsed=30), 10, 100, False)
    assert (o.status, o.exit_code) == (RunStatus.TIMEOUT, None)
    assert "watchdog killed the container 25 s after start" in o.detail


def test_oom_is_reported() -> None:
    o = classify(run(tr("RC", "137"), 137, oom=True), 10, 100, False)
    assert o.status is RunStatus.COMPLETED and "OOM" in o.detail
    o = classify(run(b"", 137, oom=True), 10, 100, False)
    assert o.status is RunStatus.ERROR and "OOM" in o.detail


def test_truncation_flag_and_cap() -> None:
    o = classify(run(b"x" * 101 + tr("RC", "0")), 10, 100, False)
    assert o.output_truncated and o.output == b"x" * 100
    o = classify(run(b"x" * 100 + tr("RC", "0")), 10, 100, False)
    assert not o.output_truncated and o.output == b"x" * 100


def test_report_states() -> None:
    o = classify(run(tr("RC", "0", "returned", b"<r/>")), 10, 100, True)
    assert o.report is not None and o.report_status is ReportStatus.RETURNED
    with o.report.open() as reader:
        assert reader.read() == b"<r/>"
    o = classify(run(tr("RC", "0", "missing")), 10, 100, True)
    assert (o.report, o.report_status) == (None, ReportStatus.MISSING)
    o = classify(run(b"no trailer"), 10, 100, True)
    assert o.report_status is ReportStatus.UNKNOWN
