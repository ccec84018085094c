"""The compact listing of every result (``models.listing``): round trip, and each refusal
with its positive control, as the publish job would read an attacker's artifact."""

from __future__ import annotations

import zlib

import pytest

from verify_pr.models.listing import HEADER, ListingRefused, decode, encode
from verify_pr.models.report import TestStatus

P, F, E, S, X = (
    TestStatus.PASSED,
    TestStatus.FAILED,
    TestStatus.ERROR,
    TestStatus.SKIPPED,
    TestStatus.EXPECTED_FAILURE,
)
SAMPLE = {"b.py::t[x\ty]": F, "a.py::t": P, "c.py::é": E, "d::s": S, "e::x": X}


def _record(status: bytes, test_id: bytes) -> bytes:
    return status + len(test_id).to_bytes(2, "big") + test_id


def test_every_status_and_id_round_trips() -> None:
    assert decode(encode(SAMPLE)) == SAMPLE
    assert decode(encode({})) == {}


def test_a_quarter_million_results_fit_the_bounds() -> None:
    statuses = {f"tests/test_m{i // 500}.py::TestC::test_{i}[p{i % 7}]": P for i in range(250_000)}
    data = encode(statuses)
    assert len(data) < 4 * 1024 * 1024
    assert decode(data) == statuses


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        (b"VPRL2\n", "no VPRL1 header"),
        (HEADER + _record(b"Q", b"a"), "bad record"),
        (HEADER + _record(b"P", b""), "bad record"),
        (HEADER + b"P\x00\x09abc", "bad record"),  # the length runs past the end
        (HEADER + b"P\x00", "ends inside a record"),
        (HEADER + _record(b"P", b"\xff"), "not UTF-8"),
        (HEADER + _record(b"P", b"a\x1bb"), "no report gives"),  # an escape, unescaped
        (HEADER + _record(b"P", b"a" * 1001), "longer than 1000"),
        (HEADER + _record(b"P", b"b") + _record(b"P", b"a"), "not sorted and unique"),
        (HEADER + _record(b"P", b"a") + _record(b"F", b"a"), "not sorted and unique"),
    ],
)
def test_a_listing_no_verifier_writes_is_refused(raw: bytes, needle: str) -> None:
    with pytest.raises(ListingRefused, match=needle):
        decode(zlib.compress(raw))
    # control: the header and one good record
    assert decode(zlib.compress(HEADER + _record(b"P", b"a"))) == {"a": P}


def test_the_bounds_hold_before_the_data_is_read() -> None:
    bomb = zlib.compress(HEADER + b"\0" * (8 * 1024 * 1024), 9)
    with pytest.raises(ListingRefused, match="decompressed"):
        decode(bomb, max_raw=1024 * 1024)
    with pytest.raises(ListingRefused, match="bytes, more than"):
        decode(encode(SAMPLE), max_bytes=10)
    with pytest.raises(ListingRefused, match="more than 2 records"):
        decode(encode(SAMPLE), max_records=2)
    with pytest.raises(ListingRefused, match="not deflate"):
        decode(b"not deflate")
    whole = encode(SAMPLE)
    with pytest.raises(ListingRefused, match="cut short or has bytes after"):
        decode(whole[:-4])
    with pytest.raises(ListingRefused, match="cut short or has bytes after"):
        decode(whole + b"x")
