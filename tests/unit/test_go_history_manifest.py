"""The shape of tests/corpus/manifest.json's "go_history" (the Go history pairs run by
tests/integration/test_go_history.py): each pair names Debian source files the pool serves,
pinned by sha256, and its ground truth, so a malformed entry fails here, not after minutes of
downloads and runs in the Docker tier."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

MANIFEST = Path(__file__).resolve().parents[1] / "corpus" / "manifest.json"
PAIRS: list[dict[str, Any]] = json.loads(MANIFEST.read_text())["go_history"]

_SHA256 = re.compile(r"[0-9a-f]{64}")
_SOURCE = re.compile(r"golang-[a-z0-9][a-z0-9+.-]+")  # a Debian source package of Go code
_ORIG = re.compile(r"_[^_/]+\.orig\.tar\.(gz|xz|bz2)")
_DEBIAN = re.compile(r"_[^_/]+\.debian\.tar\.(gz|xz|bz2)")
# go test's id for a test: import path, then the test's full name (subtests after a slash)
_TEST_ID = re.compile(r"[a-z0-9][\w.\-/]*::(Test|Example|Fuzz)\w*(/\S+)?")
KEYS = {
    "id",
    "source",
    "note",
    "upstream",
    "base",
    "head",
    "strict_harness",
    "verdict",
    "fail_to_pass",
}


def test_there_are_real_fixes_and_controls() -> None:
    verdicts = [p["verdict"] for p in PAIRS]
    assert verdicts.count("VERIFIED") >= 3
    assert verdicts.count("NOT_PROVEN") >= 2
    assert len({p["id"] for p in PAIRS}) == len(PAIRS)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: p["id"])
def test_a_pair_has_its_files_pinned_and_its_ground_truth(pair: dict[str, Any]) -> None:
    assert set(pair) == KEYS
    source = pair["source"]
    assert _SOURCE.fullmatch(source)
    assert pair["verdict"] in ("VERIFIED", "NOT_PROVEN")
    assert isinstance(pair["strict_harness"], bool)
    for side in ("base", "head"):
        part = pair[side]
        assert _SHA256.fullmatch(part["sha256"]), side
        # a bare file name of this package: the pool's address is derived at run time
        assert part["file"].startswith(f"{source}_") and "/" not in part["file"], side
    assert _ORIG.search(pair["base"]["file"])
    head = pair["head"]
    if "patches" in head:  # base's tarball with Debian's patches applied
        assert set(head) == {"file", "sha256", "patches"}
        assert _DEBIAN.search(head["file"]) and head["patches"]
        assert all(re.fullmatch(r"[\w.+-]+", p) for p in head["patches"])
    else:  # a newer upstream release
        assert set(head) == {"file", "sha256"} and _ORIG.search(head["file"])
        assert head["file"] != pair["base"]["file"]
    ids = pair["fail_to_pass"]
    assert ids == sorted(set(ids))
    assert all(_TEST_ID.fullmatch(i) for i in ids), ids
    # a VERIFIED pair proves something; a control's tests show no fix
    assert bool(ids) == (pair["verdict"] == "VERIFIED")
    assert "://" not in json.dumps(pair)  # no mirror's host in the repository
