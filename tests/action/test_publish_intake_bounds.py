"""The publish job never fails open and never fails silent (issue 15, part 3).

Hostile JSON, malformed zips and malformed API answers, each through the real publish entry
point against the loopback API fake: every one ends in a posted check that says NOT TRUSTED
and why, never a traceback and never no check. When posting itself is impossible, the step
prints one ``::error`` line and exits non-zero. Memory is measured, not assumed: a subprocess
reports its own peak RSS while the real intake refuses a flood, and a positive control shows
the same measure catching plain pydantic's blow-up on the same input.
"""

from __future__ import annotations

import io
import json
import random
import struct
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.action.helpers import (
    NAME,
    RUN_ID,
    _untrusted,
    artifact,
    verdict_file,
    workflow_run_event,
    write_json,
    zip_files,
)
from tests.github_fake.server import TOKEN, FakeGitHub, Fault
from verify_pr.exit_codes import PublishExit
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.verdict import Verdict
from verify_pr.publish import main as publish_main

Publish = Callable[..., dict[str, Any]]
VALID = verdict_file()
RESULT_JSON = VALID.sandbox.model_dump_json().encode()
FAILED = TestCase.build(
    name="test_ok", classname=None, file="test_ok.py", line=3, status=TestStatus.FAILED
)


def _refused(check: dict[str, Any], *why: str) -> None:
    _untrusted(check)
    summary = check["output"]["summary"].replace("\\", "")
    for part in why:
        assert part in summary, summary


# -- bounded JSON ------------------------------------------------------------------------


def _with_verdict(body: bytes) -> bytes:
    return zip_files({"result.json": RESULT_JSON, "verdict.json": body})


_WHITESPACE = bytes(b" \n\t\r"[b % 4] for b in range(256))


def _noisy_flood(unit: bytes, total: int) -> bytes:
    """``unit,`` repeated, random whitespace around each comma: under the zip ratio cap."""
    step = len(unit) + 3
    count = total // step
    rng = random.Random(15)
    flood = bytearray(step * count)
    for index, byte in enumerate(unit):
        flood[index::step] = bytes([byte]) * count
    flood[len(unit) :: step] = rng.randbytes(count).translate(_WHITESPACE)
    flood[len(unit) + 1 :: step] = b"," * count
    flood[len(unit) + 2 :: step] = rng.randbytes(count).translate(_WHITESPACE)
    return b'{"testcases":[' + bytes(flood) + b"1]}"


@pytest.mark.parametrize(
    ("body", "why"),
    [
        pytest.param(_noisy_flood(b"1", 15 * 2**20), "values, over the cap", id="15MiB-of-ones"),
        pytest.param(_noisy_flood(b"{}", 2**20), "arrays and objects, over", id="1MiB-of-objects"),
        pytest.param(_noisy_flood(b"1", 2**20), "items in an array, over", id="1MiB-array"),
        pytest.param(b"[" * 5000 + b"]" * 5000, "nested 5000 deep", id="deep-nesting"),
        pytest.param(
            b"{" + b",".join(b'"k%d":1' % i for i in range(5000)) + b"}",
            "keys in an object",
            id="wide-object",
        ),
        pytest.param(
            b'{"verdict": "PASS", "reasons": ["x', "unterminated string", id="open-string"
        ),
        pytest.param(b'{"verdict": NaN}', "not valid JSON", id="nan"),
    ],
)
def test_hostile_json_is_refused_with_a_reason(publish: Publish, body: bytes, why: str) -> None:
    _refused(publish(_with_verdict(body)), "verdict.json does not match its model", why)


def test_first_bad_item_stops_validation(publish: Publish) -> None:
    """Ten thousand items, each wrong: one item is reported, not eighty thousand errors."""
    body = b'{"testcases":[' + b",".join([b"{}"] * 10_000) + b"]}"
    check = publish(_with_verdict(body))
    _refused(check, "testcases.0:", "Field required")
    assert "testcases.1:" not in check["output"]["summary"]


def test_positive_control_valid_json_through_the_same_path(publish: Publish) -> None:
    check = publish(_with_verdict(VALID.model_dump_json(indent=2).encode()))
    assert check["conclusion"] == "success", check["output"]["summary"]


_RSS_PROBE = """
import json, sys
from pydantic import ValidationError
from verify_pr.models.verdict import VerdictFile
from verify_pr.publish.intake import validate_artifact

unit, total, mode = sys.argv[1].encode(), int(sys.argv[2]), sys.argv[3]
result, _, legit = sys.stdin.buffer.read().partition(b"\\n")
body = b"".join([b'{"testcases":[', unit * (total // len(unit)), b"1]}"])
if mode == "legit":
    body, mode = legit, "intake"
def kib(key):
    # this process's own memory: VmHWM belongs to the process image, while ru_maxrss keeps
    # the peak of the (large) pytest process it was forked from across exec
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise LookupError(key)
before = kib("VmRSS")
if mode == "intake":
    intake = validate_artifact({"result.json": result, "verdict.json": body}, "a" * 40)
    refused = getattr(intake, "reason", "")
else:
    try:
        VerdictFile.model_validate_json(body)
        refused = ""
    except ValidationError as exc:
        refused = f"{exc.error_count()} errors"
grew = kib("VmHWM") - before
print(json.dumps({"grew_mib": grew / 1024, "refused": refused}))
"""
RSS_GROWTH_BOUND_MIB = 100
"""Far above what the bounded intake needs (a few MiB), far below a flood's 300+ MiB."""


def _legit_verdict(size: int) -> bytes:
    """An honest FAIL verdict.json of about ``size`` bytes (one failing test, the rest pass)."""
    cases = []
    while len(cases) * 400 < size:
        status = TestStatus.FAILED if not cases else TestStatus.PASSED
        cases.append(
            TestCase.build(
                name=f"test_{len(cases)}_" + "x" * 200,
                classname="tests.test_x",
                file="tests/test_x.py",
                line=len(cases) + 1,
                status=status,
                message="assert 1 == 2" if status is TestStatus.FAILED else None,
            )
        )
    return verdict_file(Verdict.FAIL, tuple(cases)).model_dump_json().encode()


def _peak_growth(unit: str, total: int, mode: str, legit: bytes = b"") -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-I", "-c", _RSS_PROBE, unit, str(total), mode],
        input=verdict_file(Verdict.FAIL, (FAILED,)).sandbox.model_dump_json().encode()
        + b"\n"
        + legit,
        capture_output=True,
        check=True,
        timeout=300,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize(
    ("unit", "total"),
    [("1,", 2**20), ("{},", 2**20), ('"",', 2**20), ("1,", 15 * 2**20), ("{},", 15 * 2**20)],
)
def test_a_flood_is_refused_in_bounded_memory(unit: str, total: int) -> None:
    measured = _peak_growth(unit, total, "intake")
    assert measured["refused"].startswith("verdict.json does not match its model")
    assert measured["grew_mib"] < RSS_GROWTH_BOUND_MIB, measured


def test_the_bound_is_comfortably_above_an_honest_file_of_the_same_size() -> None:
    legit = _legit_verdict(2**20)
    measured = _peak_growth("1,", 0, "legit", legit)
    assert measured["refused"] == "", measured
    assert measured["grew_mib"] < RSS_GROWTH_BOUND_MIB / 2, measured


def test_positive_control_plain_pydantic_blows_the_same_bound() -> None:
    """The measure can fail: unbounded validation of 1 MiB of ``1,`` grows far past it."""
    measured = _peak_growth("1,", 2**20, "plain")
    assert int(measured["refused"].split()[0]) > 500_000
    assert measured["grew_mib"] > RSS_GROWTH_BOUND_MIB, measured


# -- malformed zips ----------------------------------------------------------------------


def _patch_flags(data: bytes, flag: int) -> bytes:
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = out.find(signature) + offset
        struct.pack_into("<H", out, at, struct.unpack_from("<H", out, at)[0] | flag)
    return bytes(out)


def _corrupt_deflate() -> bytes:
    data = bytearray(zip_files({"result.json": RESULT_JSON, "verdict.json": b"x" * 5000}))
    start = data.find(b"PK\x03\x04", 1) + 30 + len("verdict.json")
    data[start : start + 16] = b"\xff" * 16
    return bytes(data)


def _bad_crc() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("result.json", RESULT_JSON)
        archive.writestr("verdict.json", VALID.model_dump_json())
    data = bytearray(buffer.getvalue())
    at = data.find(b'"verdict"')
    data[at + 1] ^= 0x20  # one flipped byte: the stored CRC no longer matches
    return bytes(data)


def _empty_member_name() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("result.json", RESULT_JSON)
        archive.writestr(zipfile.ZipInfo(""), b"x")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "why"),
    [
        pytest.param(_corrupt_deflate(), "while decompressing data", id="zlib-error"),
        pytest.param(_patch_flags(artifact(), 0x20), "flag bit 5", id="patched-data-flag"),
        pytest.param(_patch_flags(artifact(), 0x40), "flag bit 6", id="strong-encryption-flag"),
        pytest.param(_empty_member_name(), "a member without a name", id="empty-name"),
        pytest.param(_bad_crc(), "Bad CRC-32", id="bad-crc"),
        pytest.param(b"", "not a valid zip archive", id="empty-download"),
        pytest.param(artifact()[:-30], "not a valid zip archive", id="truncated"),
    ],
)
def test_malformed_zips_end_in_a_posted_refusal(publish: Publish, data: bytes, why: str) -> None:
    _refused(publish(data), "artifact refused", why)


def test_positive_control_the_unpatched_zip_is_trusted(publish: Publish) -> None:
    assert publish(artifact())["conclusion"] == "success"


# -- malformed or failing API answers ----------------------------------------------------


@pytest.mark.parametrize(
    ("operation", "fault", "why"),
    [
        pytest.param(
            "actions/list-workflow-run-artifacts",
            Fault(200, raw=b'{"total_count": "many"}'),
            "unexpected answer",
            id="artifacts-list-malformed",
        ),
        pytest.param(
            "actions/list-workflow-run-artifacts",
            Fault(200, raw=b"[" * 100_000),
            "unexpected answer",
            id="artifacts-list-deeply-nested",
        ),
        pytest.param(
            "pulls/list-files",
            Fault(404, raw=b'{"message":' + b"[" * 100_000),
            "PR could not be checked through the API",
            id="deeply-nested-error-body",
        ),
        pytest.param(
            "repos/list-pull-requests-associated-with-commit",
            Fault(200, raw=b'[{"number": "1"}]'),
            "PR could not be checked through the API",
            id="commit-pulls-malformed",
        ),
        pytest.param(
            "pulls/list-files",
            Fault(403, {"retry-after": "1e999"}, "secondary rate limit"),
            "unreadable retry-after header",
            id="retry-after-infinite",
        ),
    ],
)
def test_malformed_api_answers_end_in_a_posted_untrusted_check(
    publish: Publish, github_fake: FakeGitHub, operation: str, fault: Fault, why: str
) -> None:
    github_fake.fail_next(operation, fault, times=10)
    check = publish(artifact())
    _untrusted(check)
    assert why in check["output"]["summary"], check["output"]["summary"]


@pytest.mark.parametrize(
    "fault",
    [Fault(200, raw=b'{"total_count": 1, "check_runs": [{}]}'), Fault(502)],
    ids=["malformed", "failing"],
)
def test_an_unreadable_check_run_listing_still_posts_a_fresh_check(
    publish: Publish, github_fake: FakeGitHub, fault: Fault
) -> None:
    github_fake.fail_next("checks/list-for-ref", fault, times=10)
    assert publish(artifact())["conclusion"] == "success"
    assert len(github_fake.calls("checks/create")) == 1


def test_a_storage_url_that_is_not_a_url_is_a_posted_refusal(
    publish: Publish, github_fake: FakeGitHub
) -> None:
    """httpx reads the location itself (a transport error, retried), so it must keep failing."""
    fault = Fault(302, {"location": "http://[::1"})
    github_fake.fail_next("actions/download-artifact", fault, times=10)
    _refused(publish(artifact()), "Invalid URL in location header")


def test_unreadable_tree_posts_the_check_without_annotations(
    publish: Publish, github_fake: FakeGitHub
) -> None:
    github_fake.fail_next("git/get-tree", Fault(200, raw=b"{not json"), times=10)
    failing = verdict_file(Verdict.FAIL, (FAILED,))
    check = publish(artifact(failing))
    assert check["conclusion"] == "failure"
    assert "no annotations" in check["output"]["summary"]


def test_a_bug_in_the_intake_is_a_posted_refusal(
    publish: Publish, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> dict[str, bytes]:
        raise TypeError("unexpected")

    monkeypatch.setattr("verify_pr.publish.intake.read_artifact", broken)
    _refused(publish(artifact()), "internal error (TypeError: unexpected)")


def test_when_posting_is_impossible_the_log_says_so_and_the_step_fails(
    tmp_path: Path,
    github_fake: FakeGitHub,
    webhook_payload: Callable[..., dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    github_fake.add_artifact(RUN_ID, NAME, artifact())
    github_fake.fail_next("checks/create", Fault(500, raw=b"[" * 100_000))
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
    env = {
        "INPUT_GITHUB-TOKEN": TOKEN,
        "GITHUB_REPOSITORY": event["repository"]["full_name"],
        "GITHUB_API_URL": github_fake.base_url,
        "GITHUB_EVENT_PATH": str(write_json(tmp_path / "event.json", event)),
    }
    assert publish_main.main(env) == PublishExit.NOT_POSTED
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("::error")]
    assert "no check run could be posted" in line and "answered 500" in line
    assert "Traceback" not in out
    assert github_fake.check_runs == {}
