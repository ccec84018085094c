"""The publish step against hostile artifacts and forged runs, through the loopback API fake.

Each case posts a real check run to the fake (which checks every request against GitHub's
OpenAPI description) and asserts what the check says: a refused or untrusted result is
``action_required``, titled NOT TRUSTED, and never ``success`` or ``failure``.
"""

from __future__ import annotations

import io
import json
import secrets
import stat
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.action.helpers import (
    FORK_REPO_ID,
    HOSTILE_NAME,
    PR,
    WORKFLOW_PATH,
    _untrusted,
    artifact,
    verdict_file,
    write_json,
    zip_files,
)
from tests.github_fake.server import TOKEN, FakeGitHub
from verify_pr.exit_codes import PublishExit
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.verdict import Verdict
from verify_pr.publish import main as publish_main
from verify_pr.publish.checks import Conclusion


def test_trusted_pass_is_success(publish: Callable[..., dict[str, Any]]) -> None:
    check = publish(artifact())
    assert check["conclusion"] == "success"
    assert check["output"]["title"] == "PASS"


@pytest.mark.parametrize(
    "changed",
    [
        WORKFLOW_PATH,
        ".github/actions/setup/action.yml",
        ".github/dependabot.yml",
        "action.yml",
        "tools/verify/action.yaml",
    ],
)
def test_forged_pass_from_a_pr_that_edits_the_workflow_is_not_trusted(
    publish: Callable[..., dict[str, Any]], changed: str
) -> None:
    check = publish(artifact(), pr_files=("test_ok.py", changed))
    _untrusted(check)
    assert changed.replace(".", "") in check["output"]["summary"].replace("\\", "").replace(".", "")
    assert "Claimed verdict: PASS" in check["output"]["summary"]


def test_protected_paths_input(publish: Callable[..., dict[str, Any]]) -> None:
    check = publish(
        artifact(),
        pr_files=("src/verify_pr/action.py",),
        extra_env={"INPUT_PROTECTED-PATHS": "src/*\nentrypoint"},
    )
    _untrusted(check)


def test_same_repo_pr_that_edits_the_workflow_is_not_trusted(
    publish: Callable[..., dict[str, Any]],
) -> None:
    _untrusted(publish(artifact(), pr_files=(WORKFLOW_PATH,), fork=False))


def test_no_matching_pr_is_not_trusted(
    publish: Callable[..., dict[str, Any]], github_fake: FakeGitHub
) -> None:
    """The only PR of the head branch has moved on to another commit."""
    check = publish(artifact(), pulls=[(PR, "octo-org:fix-bug", "1" * 40, FORK_REPO_ID)])
    _untrusted(check)
    assert "no open pull request" in check["output"]["summary"]


@pytest.mark.parametrize("trigger", ["workflow_dispatch", "pull_request_target", "schedule"])
def test_other_triggers_are_not_trusted(
    publish: Callable[..., dict[str, Any]], trigger: str
) -> None:
    _untrusted(publish(artifact(), event_changes={"event": trigger}))


def test_artifact_of_another_commit_is_refused(publish: Callable[..., dict[str, Any]]) -> None:
    check = publish(artifact(), artifact_head="0" * 40)
    _untrusted(check)
    assert "does not belong" in check["output"]["summary"]


def test_missing_artifact_is_action_required(publish: Callable[..., dict[str, Any]]) -> None:
    _untrusted(publish(None))


def _zip_with(info: zipfile.ZipInfo, data: bytes) -> bytes:
    buffer = io.BytesIO()
    v = verdict_file()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("result.json", v.sandbox.model_dump_json())
        archive.writestr("verdict.json", v.model_dump_json())
        archive.writestr(info, data)
    return buffer.getvalue()


def _symlink(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_zip_with(zipfile.ZipInfo("../../etc/cron.d/x"), b"x"), id="zip-slip"),
        pytest.param(_zip_with(zipfile.ZipInfo("/abs/output.txt"), b"x"), id="absolute"),
        pytest.param(_zip_with(_symlink("output.txt"), b"/etc/passwd"), id="symlink"),
        pytest.param(_zip_with(zipfile.ZipInfo("evil.sh"), b"x"), id="unknown-name"),
        pytest.param(b"PK\x03\x04 not a zip", id="not-a-zip"),
        pytest.param(artifact(**{"output.txt": b"A" * (17 * 1024 * 1024)}), id="oversize-member"),
    ],
)
def test_hostile_archives_are_refused(publish: Callable[..., dict[str, Any]], data: bytes) -> None:
    check = publish(data)
    _untrusted(check)
    assert "artifact" in check["output"]["summary"]


def test_oversize_download_is_refused(publish: Callable[..., dict[str, Any]]) -> None:
    import os

    check = publish(os.urandom(17 * 1024 * 1024))
    _untrusted(check)


def test_extra_fields_are_refused(publish: Callable[..., dict[str, Any]]) -> None:
    v = verdict_file()
    doc = json.loads(v.model_dump_json())
    doc["trusted"] = True
    data = zip_files(
        {
            "result.json": v.sandbox.model_dump_json().encode(),
            "verdict.json": json.dumps(doc).encode(),
        }
    )
    check = publish(data)
    _untrusted(check)
    assert "does not match its model" in check["output"]["summary"]


def test_verdict_and_result_must_describe_one_run(publish: Callable[..., dict[str, Any]]) -> None:
    v = verdict_file()
    other = v.sandbox.model_copy(update={"exit_code": 1})
    data = zip_files(
        {
            "result.json": other.model_dump_json().encode(),
            "verdict.json": v.model_dump_json().encode(),
        }
    )
    _untrusted(publish(data))


def test_markdown_and_mentions_are_escaped_and_annotations_validated(
    publish: Callable[..., dict[str, Any]], github_fake: FakeGitHub
) -> None:
    cases = (
        TestCase.build(
            name=HOSTILE_NAME,
            classname=None,
            file="test_ok.py",
            line=None,
            status=TestStatus.FAILED,
            message="@admin see www.evil.example",
        ),
        TestCase.build(
            name="outside",
            classname=None,
            file="../../etc/passwd",
            line=4,
            status=TestStatus.FAILED,
            message="m",
        ),
        TestCase.build(
            name="not in tree",
            classname=None,
            file="missing.py",
            line=4,
            status=TestStatus.ERROR,
            message="m",
        ),
    )
    output = "".join(
        f"```\n@everyone ```` ](https://x) {secrets.token_hex(8)}\n" for _ in range(5000)
    ).encode()
    check = publish(artifact(verdict_file(Verdict.FAIL, cases), **{"output.txt": output}))
    assert check["conclusion"] == "failure"
    for text in (check["output"]["summary"], check["output"]["text"]):
        assert "@octocat" not in text and "@admin" not in text
        assert "(https://evil" not in text and "\n<img" not in text and " <img" not in text
        assert len(text.encode()) <= 65535
    (run_id,) = github_fake.check_runs
    notes = github_fake.annotations[run_id]
    assert [(n["path"], n["start_line"]) for n in notes] == [("test_ok.py", 1)]


def test_many_failures_go_in_batches_of_50(
    publish: Callable[..., dict[str, Any]], github_fake: FakeGitHub
) -> None:
    cases = tuple(
        TestCase.build(
            name=f"t{i}",
            classname=None,
            file="tests/test_x.py",
            line=i + 1,
            status=TestStatus.FAILED,
            message="boom",
        )
        for i in range(120)
    )
    publish(artifact(verdict_file(Verdict.FAIL, cases)))
    (run_id,) = github_fake.check_runs
    assert len(github_fake.annotations[run_id]) == 120
    bodies = github_fake.calls("checks/create") + github_fake.calls("checks/update")
    assert [len(b.body["output"].get("annotations", [])) for b in bodies] == [50, 50, 20]


@pytest.mark.parametrize("verdict", list(Verdict))
@pytest.mark.parametrize("trusted", [True, False])
def test_conclusion_table(verdict: Verdict, trusted: bool) -> None:
    trust = publish_main.Trust([] if trusted else ["forged"])
    conclusion = publish_main.conclude(verdict, trust)
    expected = {
        Verdict.PASS: Conclusion.SUCCESS,
        Verdict.FAIL: Conclusion.FAILURE,
        Verdict.NOT_PROVEN: Conclusion.NEUTRAL,
        Verdict.BLOCKED: Conclusion.ACTION_REQUIRED,
    }[verdict]
    assert conclusion == (expected if trusted else Conclusion.ACTION_REQUIRED)
    if verdict in (Verdict.NOT_PROVEN, Verdict.BLOCKED):
        assert conclusion not in (Conclusion.SUCCESS, Conclusion.FAILURE)


@pytest.mark.parametrize("verdict", [Verdict.NOT_PROVEN, Verdict.BLOCKED])
def test_not_proven_and_blocked_say_what_they_mean(
    publish: Callable[..., dict[str, Any]], verdict: Verdict
) -> None:
    check = publish(artifact(verdict_file(verdict)))
    assert check["conclusion"] in ("neutral", "action_required")
    assert verdict.value.replace("_", " ") in check["output"]["summary"]
    assert (
        "not a pass" in check["output"]["summary"] or "says nothing" in check["output"]["summary"]
    )


def test_bad_event_file_is_a_config_error(tmp_path: Path) -> None:
    env = {
        "INPUT_GITHUB-TOKEN": TOKEN,
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_EVENT_PATH": str(write_json(tmp_path / "e.json", {"action": "opened"})),
    }
    assert publish_main.main(env) == PublishExit.REFUSED
