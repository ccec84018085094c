"""A run's every result in a compact form: each id with its worst status, compressed, bounded by
bytes rather than by a count (issue 36: a suite of 250,000 tests paired whole).

The result file carries at most ``VERDICT_MAX_TESTCASES`` testcases per run, with their files,
lines and messages; a side with more "cannot be paired whole". This listing carries only what
the pairing needs (``models.transitions.classify``): id and status, for every result. Both sides
share it: the verifier writes it, the publish job reads it under the bounds below before
anything else (a decompression bomb stops at ``max_raw`` bytes out, never more) and
re-derives the transitions from it.

Format, version 1: zlib (deflate) of the header ``VPRL1\\n`` and one record per id, sorted by
id: a status byte (``STATUS_CODES``), the id's UTF-8 length in two bytes (big-endian), the id.
An id is what the report models made it (``clean_text``: at most ``ID_MAX_CHARS`` characters,
no control character but tab and newline), and each appears once.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping

from verify_pr.models.report import ID_MAX_CHARS, TestStatus, clean_text

HEADER = b"VPRL1\n"
# 250,000 ids of ~80 bytes are ~21 MB raw and ~2 MB compressed: room for 4x that, no more
MAX_LISTING_BYTES = 16 * 1024 * 1024  # compressed, as the artifact holds it
MAX_LISTING_RAW = 96 * 1024 * 1024  # decompressed
MAX_LISTING_RECORDS = 1_000_000
STATUS_CODES: dict[TestStatus, int] = {
    TestStatus.PASSED: ord("P"),
    TestStatus.FAILED: ord("F"),
    TestStatus.ERROR: ord("E"),
    TestStatus.SKIPPED: ord("S"),
    TestStatus.EXPECTED_FAILURE: ord("X"),
    TestStatus.NOT_RUN: ord("N"),  # base's own run only: collected, not run by id
}
_BY_CODE = {code: status for status, code in STATUS_CODES.items()}
# The compare artifact's listings, one per run the comparison pairs (flat names, written by
# ``verify-pr compare`` beside verify-pr-result.json when a run has more results than its
# verdict file lists, and uploaded as they are)
LISTING_FILES: dict[str, str] = {
    "base": "base-listing.bin",  # the before run (base's code with the PR's tests)
    "head": "head-listing.bin",
    "base_own": "base-own-listing.bin",
}


class ListingRefused(ValueError):
    """The listing is not one this module writes; the message says why, in one line."""


def encode(statuses: Mapping[str, TestStatus]) -> bytes:
    """The listing of ``statuses`` (one status per id, as ``worst_by_id`` gives them)."""
    parts = [HEADER]
    for test_id in sorted(statuses):
        raw = test_id.encode("utf-8")
        parts.append(bytes((STATUS_CODES[statuses[test_id]],)) + len(raw).to_bytes(2, "big"))
        parts.append(raw)
    return zlib.compress(b"".join(parts), 6)


def decode(
    data: bytes,
    max_bytes: int = MAX_LISTING_BYTES,
    max_raw: int = MAX_LISTING_RAW,
    max_records: int = MAX_LISTING_RECORDS,
) -> dict[str, TestStatus]:
    """Every id of the listing with its status, or ``ListingRefused``: over a bound, not
    deflate, a bad header, status or id, an id twice or out of order, or bytes left over."""
    if len(data) > max_bytes:
        raise ListingRefused(f"the listing is {len(data)} bytes, more than {max_bytes}")
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(data, max_raw + 1)
    except zlib.error as exc:
        raise ListingRefused(f"the listing is not deflate data ({exc})") from exc
    if len(raw) > max_raw or inflate.unconsumed_tail:
        raise ListingRefused(f"the listing holds more than {max_raw} bytes decompressed")
    if not inflate.eof or inflate.unused_data:
        raise ListingRefused("the listing's deflate stream is cut short or has bytes after it")
    if not raw.startswith(HEADER):
        raise ListingRefused("the listing has no VPRL1 header")
    found: dict[str, TestStatus] = {}
    view, at, last = memoryview(raw), len(HEADER), None
    while at < len(raw):
        if len(found) >= max_records:
            raise ListingRefused(f"the listing holds more than {max_records} records")
        if at + 3 > len(raw):
            raise ListingRefused("the listing ends inside a record")
        status = _BY_CODE.get(raw[at])
        size = int.from_bytes(view[at + 1 : at + 3], "big")
        end = at + 3 + size
        if status is None or size == 0 or end > len(raw):
            raise ListingRefused(f"the listing has a bad record at byte {at}")
        try:
            test_id = str(view[at + 3 : end], "utf-8")
        except UnicodeDecodeError as exc:
            raise ListingRefused(f"the listing has an id that is not UTF-8 at byte {at}") from exc
        if len(test_id) > ID_MAX_CHARS:
            raise ListingRefused(f"the listing has an id longer than {ID_MAX_CHARS}, at byte {at}")
        if last is not None and test_id <= last:
            raise ListingRefused(f"the listing's ids are not sorted and unique, at byte {at}")
        found[test_id] = status
        last, at = test_id, end
    # every id as ``clean_text`` leaves it (one pass over them all: newline is allowed)
    joined = "\n".join(found)
    if clean_text(joined, len(joined) * 6 + 1) != joined:
        raise ListingRefused("the listing has an id no report gives (an unescaped control)")
    return found
