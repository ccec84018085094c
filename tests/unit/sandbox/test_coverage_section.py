"""The trailer's coverage section (``--coverage``): a second returned file, same rules."""

from __future__ import annotations

from importlib import resources

import pytest

from verify_pr.contract import MAX_COVERAGE_BYTES
from verify_pr.sandbox.capture import StreamCapture, parse_trailer
from verify_pr.sandbox.spool import ReportSpool
from verify_pr.sandbox.trailer import TrailerError

NONCE = "0123456789abcdef0123456789abcdef"


def wire(report: bytes = b"", cov: bytes | None = b"", cov_state: str = "returned") -> bytes:
    state = "returned" if report else "none"
    out = f"\nVPR1 {NONCE} RC 0 {state} {len(report)}\n".encode() + report
    if cov is not None:
        out += f"\nVPR1 {NONCE} COV {cov_state} {len(cov)}\n".encode() + cov
    return out + f"\nVPR1 {NONCE} END\n".encode()


def scan(stdout: bytes, *, asked: bool = True, chunk: int = 0) -> StreamCapture:
    cap = StreamCapture(head_limit=100, nonce=NONCE, coverage=asked)
    step = chunk or len(stdout) or 1
    for i in range(0, len(stdout), step):
        cap.add_stdout(stdout[i : i + step])
    return cap


def read(spool: ReportSpool | None) -> bytes | None:
    if spool is None:
        return None
    with spool.open() as reader:
        return reader.read()


@pytest.mark.parametrize("chunk", [1, 5, 4096])
def test_report_and_coverage_both_returned_across_any_chunks(chunk: int) -> None:
    report, cov = b"<r/>" * 300, b'{"f": [1, 2]}\n' * 200
    t = parse_trailer(scan(b"out\n" + wire(report, cov), chunk=chunk), NONCE)
    assert (read(t.report), read(t.coverage), t.coverage_state) == (report, cov, "returned")
    assert t.output_end == 4


def test_coverage_returned_without_a_report() -> None:
    t = parse_trailer(scan(wire(b"", b"data")), NONCE)
    assert (t.report, read(t.coverage)) == (None, b"data")


@pytest.mark.parametrize("state", ["missing", "stale", "not_regular", "too_large"])
def test_coverage_not_returned_states_carry_no_bytes(state: str) -> None:
    t = parse_trailer(scan(wire(b"<r/>", b"", state)), NONCE)
    assert (t.coverage, t.coverage_state, read(t.report)) == (None, state, b"<r/>")


def test_a_run_that_asked_needs_the_section() -> None:
    # the positive control is every test above: with the section, the same run is accepted
    with pytest.raises(TrailerError, match="coverage section is missing"):
        parse_trailer(scan(wire(b"<r/>", None)), NONCE)


def test_a_run_that_did_not_ask_refuses_the_section() -> None:
    with pytest.raises(TrailerError, match="disagrees"):
        parse_trailer(scan(wire(b"<r/>", b"x"), asked=False), NONCE)
    assert parse_trailer(scan(wire(b"<r/>", None), asked=False), NONCE).coverage is None


def test_coverage_over_its_cap_is_refused() -> None:
    head = wire(b"", None)[: -len(f"\nVPR1 {NONCE} END\n")]
    head += f"\nVPR1 {NONCE} COV returned {MAX_COVERAGE_BYTES + 1}\n".encode()
    with pytest.raises(TrailerError, match="cap"):
        parse_trailer(scan(head + b"x"), NONCE)


def test_coverage_bytes_for_a_file_not_returned_are_refused() -> None:
    with pytest.raises(TrailerError, match="not returned"):
        parse_trailer(scan(wire(b"", b"xx", "missing")), NONCE)


def test_coverage_length_must_match_its_bytes() -> None:
    good = wire(b"", b"abc")
    bad = good.replace(b"COV returned 3", b"COV returned 5")
    assert read(parse_trailer(scan(good), NONCE).coverage) == b"abc"
    with pytest.raises(TrailerError, match="disagrees"):
        parse_trailer(scan(bad), NONCE)


def test_malformed_coverage_header_is_refused() -> None:
    bad = wire(b"", b"").replace(b"COV returned 0", b"COV RETURNED zero")
    with pytest.raises(TrailerError, match="malformed"):
        parse_trailer(scan(bad), NONCE)


def test_wrapper_holds_the_same_coverage_cap_and_a_wrapper_failure_has_the_section() -> None:
    text = resources.files("verify_pr.sandbox").joinpath("wrapper.sh").read_text()
    assert f'state_of "$cov" "$cstale" {MAX_COVERAGE_BYTES}' in text
    assert """[ "$cov" != - ] && printf '\\nVPR1 %s COV none 0\\n' "$nonce\"""" in text
