"""Frame demuxing, bounded capture and the nonce-bearing trailer."""

from __future__ import annotations

import struct

import pytest

from verify_pr.contract import MAX_REPORT_BYTES
from verify_pr.sandbox.capture import FrameDemuxer, StreamCapture, parse_trailer
from verify_pr.sandbox.spool import ReportSpool
from verify_pr.sandbox.trailer import TrailerError, TrailerKind

NONCE = "0123456789abcdef0123456789abcdef"


def frame(stream: int, data: bytes) -> bytes:
    return struct.pack(">BxxxL", stream, len(data)) + data


def trailer(rc: int = 0, state: str = "none", report: bytes = b"", nonce: str = NONCE) -> bytes:
    head = f"\nVPR1 {nonce} RC {rc} {state} {len(report)}\n".encode()
    return head + report + f"\nVPR1 {nonce} END\n".encode()


def capture_of(stdout: bytes, limit: int = 100, chunk: int = 0) -> StreamCapture:
    cap = StreamCapture(head_limit=limit, nonce=NONCE)
    step = chunk or len(stdout) or 1
    for i in range(0, len(stdout), step):
        cap.add_stdout(stdout[i : i + step])
    return cap


def spooled(spool: ReportSpool | None) -> bytes | None:
    if spool is None:
        return None
    with spool.open() as reader:
        return reader.read()


def test_demux_splits_streams_across_arbitrary_chunks() -> None:
    cap = StreamCapture(head_limit=1000, nonce=NONCE)
    demux = FrameDemuxer(cap)
    wire = frame(1, b"hello ") + frame(2, b"oops") + frame(1, b"world")
    for i in range(len(wire)):
        demux.feed(wire[i : i + 1])
    assert bytes(cap.head) == b"hello world"
    assert bytes(cap.stderr) == b"oops"


def test_capture_keeps_head_and_a_small_window_in_memory() -> None:
    cap = StreamCapture(head_limit=10, nonce=NONCE)
    block = b"x" * 65536
    for _ in range(100):
        cap.add_stdout(block)
    cap.add_stdout(b"END")
    assert len(cap.head) == 10
    assert len(cap.scanner._window) < 64  # only what could be the start of a header
    assert cap.total == 100 * 65536 + 3


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_trailer_and_report_split_across_any_chunks(chunk: int) -> None:
    report = b"<r>" + b"z" * 5000 + b"</r>"
    cap = capture_of(b"out\n" + trailer(0, "returned", report), chunk=chunk)
    t = parse_trailer(cap, NONCE)
    assert (spooled(t.report), t.output_end) == (report, 4)


def test_report_is_spooled_to_disk_not_kept_in_memory() -> None:
    report = b"y" * (3 * 1024 * 1024)
    cap = capture_of(trailer(0, "returned", report), chunk=256 * 1024)
    t = parse_trailer(cap, NONCE)
    assert t.report is not None and t.report.size == len(report)
    assert len(cap.head) <= 100 and len(cap.scanner._window) < 64
    assert spooled(t.report) == report


def test_report_length_over_the_cap_is_refused() -> None:
    head = f"\nVPR1 {NONCE} RC 0 returned {MAX_REPORT_BYTES + 1}\n".encode()
    with pytest.raises(TrailerError, match="cap"):
        parse_trailer(capture_of(head + b"x"), NONCE)


def test_wrapper_holds_the_same_report_cap() -> None:
    from importlib import resources

    text = resources.files("verify_pr.sandbox").joinpath("wrapper.sh").read_text()
    assert f'state_of "$rep" "$stale" {MAX_REPORT_BYTES}' in text


def test_trailer_found_and_output_cut_before_it() -> None:
    cap = capture_of(b"out\n" + trailer(3))
    t = parse_trailer(cap, NONCE)
    assert (t.kind, t.code, t.report_state, t.report) == (TrailerKind.RC, "3", "none", None)
    assert bytes(cap.head[: t.output_end]) == b"out\n"


def test_report_returned_exactly() -> None:
    report = b"<xml>\n\x00 binary \xff</xml>"
    t = parse_trailer(capture_of(b"o" + trailer(0, "returned", report)), NONCE)
    assert spooled(t.report) == report


def test_forged_sentinel_without_nonce_is_output() -> None:
    forged = trailer(0, nonce="f" * 32)
    cap = capture_of(forged + b"tail")
    with pytest.raises(TrailerError, match="no sentinel"):
        parse_trailer(cap, NONCE)


def test_only_the_last_header_counts() -> None:
    # A fake header carrying a wrong nonce before the real one changes nothing.
    stdout = b"\nVPR1 " + b"a" * 32 + b" RC 0 none 0\n" + trailer(1)
    t = parse_trailer(capture_of(stdout), NONCE)
    assert t.code == "1"


def test_bytes_after_the_end_marker_are_rejected() -> None:
    with pytest.raises(TrailerError, match="after"):
        parse_trailer(capture_of(trailer(0) + b"late"), NONCE)


def test_length_mismatch_rejected() -> None:
    bad = f"\nVPR1 {NONCE} RC 0 returned 99\nabc\nVPR1 {NONCE} END\n".encode()
    with pytest.raises(TrailerError, match="length"):
        parse_trailer(capture_of(bad), NONCE)


def test_malformed_header_rejected() -> None:
    bad = f"\nVPR1 {NONCE} RC -1 none 0\n\nVPR1 {NONCE} END\n".encode()
    with pytest.raises(TrailerError, match="malformed"):
        parse_trailer(capture_of(bad), NONCE)


def test_trailer_after_flood_found_in_tail() -> None:
    cap = StreamCapture(head_limit=10, nonce=NONCE)
    for _ in range(50):
        cap.add_stdout(b"y\n" * 50000)
    cap.add_stdout(trailer(0))
    t = parse_trailer(cap, NONCE)
    assert t.output_end == 50 * 100000
