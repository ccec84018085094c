"""The verify step in compare mode, without Docker: its inputs, the verifier's argv, the
flattened artifact, and the step's exit, outputs and summary for each verifier exit."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from tests.action.compare_builders import case, compare_result
from tests.action.helpers import HOSTILE_NAME, step_env, verdict_file, verifier_seam
from verify_pr import action
from verify_pr.errors import ConfigError
from verify_pr.exit_codes import StepExit
from verify_pr.github.settings import VerifySettings
from verify_pr.models.compare import (
    COMPARE_ARTIFACT_FILES,
    COMPARE_REQUIRED_FILES,
    CompareResult,
    CompareVerdict,
)
from verify_pr.models.listing import LISTING_FILES, encode
from verify_pr.models.report import TestStatus
from verify_pr.models.verdict import Verdict


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return step_env(tmp_path)


def test_compare_mode_needs_the_event(env: dict[str, str]) -> None:
    env["INPUT_MODE"] = "compare"
    with pytest.raises(ConfigError, match="GITHUB_EVENT_PATH"):
        action.run(env, io.StringIO())


def test_strict_harness_is_for_compare_only(env: dict[str, str]) -> None:
    env["INPUT_STRICT-HARNESS"] = "true"
    with pytest.raises(ConfigError, match="mode compare only"):
        action.run(env, io.StringIO())


def test_compare_mode_still_refuses_credentials(env: dict[str, str]) -> None:
    env.update({"INPUT_MODE": "compare", "GITHUB_EVENT_PATH": "/e.json", "GH_TOKEN": "x"})
    with pytest.raises(ConfigError, match="refusing to run with credentials"):
        action.run(env, io.StringIO())


def test_compare_argv(env: dict[str, str]) -> None:
    env.update(
        {
            "INPUT_MODE": "compare",
            "INPUT_PATH": "pr",
            "INPUT_STRICT-HARNESS": "true",
            "GITHUB_EVENT_PATH": "/github/event.json",
        }
    )
    settings = VerifySettings.from_env(env)
    argv = action.compare_argv(settings, Path("/tmp/out"))
    assert argv[1:5] == ["-I", "-m", "verify_pr.verify.cli", "compare"]
    assert argv[argv.index("--git") + 1] == str(Path(env["GITHUB_WORKSPACE"]).resolve() / "pr")
    assert argv[argv.index("--event") + 1] == "/github/event.json"
    assert argv[-1] == "--strict-harness"
    env["INPUT_STRICT-HARNESS"] = "false"
    assert "--strict-harness" not in action.compare_argv(VerifySettings.from_env(env), Path("/o"))


def _write_compare_out(out: Path, result: CompareResult) -> None:
    out.mkdir()
    (out / "verify-pr-result.json").write_text(result.model_dump_json())
    (out / "compare_summary.md").write_text("## summary\n")
    for side, v in (("base", result.before), ("head", result.head)):
        (out / side).mkdir()
        (out / side / "verdict.json").write_text(v.model_dump_json())
        (out / side / "result.json").write_text(v.sandbox.model_dump_json())
        (out / side / "output.txt").write_text(f"::warning::from the {side} run\n")


def test_flatten_copies_only_allow_listed_regular_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write_compare_out(out, compare_result())
    (out / "head" / "report.txt").symlink_to("/etc/passwd")
    (out / "head" / "extra.txt").write_text("x")
    written = action.flatten_compare(out, tmp_path / "upload")
    names = sorted(p.name for p in (tmp_path / "upload").iterdir())
    assert names == sorted(written)
    assert set(names) <= COMPARE_ARTIFACT_FILES
    assert "head-report.txt" not in names and "extra.txt" not in names
    assert set(names) >= COMPARE_REQUIRED_FILES
    assert not any(p.is_dir() or p.is_symlink() for p in (tmp_path / "upload").iterdir())


def test_a_wide_comparison_uploads_its_listings_and_not_the_raw_reports(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write_compare_out(out, compare_result())
    for side in ("base", "head"):
        (out / side / "report.txt").write_text("<testsuites/>")
    narrow = action.flatten_compare(out, tmp_path / "narrow")
    assert {"base-report.txt", "head-report.txt"} <= set(narrow)  # control: no listing
    for name in LISTING_FILES.values():
        (out / name).write_bytes(encode({}))
    written = action.flatten_compare(out, tmp_path / "wide")
    assert set(LISTING_FILES.values()) <= set(written) <= COMPARE_ARTIFACT_FILES
    assert not {"base-report.txt", "head-report.txt"} & set(written)


@pytest.mark.parametrize(
    ("verifier_exit", "verdict", "step_exit"),
    [
        (0, CompareVerdict.VERIFIED, StepExit.OK),
        (4, CompareVerdict.NOT_PROVEN, StepExit.OK),
        (3, CompareVerdict.BLOCKED, StepExit.OK),
        (0, CompareVerdict.NOT_PROVEN, StepExit.CRASHED),  # exit and file disagree
        (2, None, StepExit.REFUSED),
        (70, None, StepExit.CRASHED),
    ],
)
def test_compare_step(
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    verifier_exit: int,
    verdict: CompareVerdict | None,
    step_exit: int,
) -> None:
    import subprocess

    hostile = case(TestStatus.FAILED, name=HOSTILE_NAME)
    base = verdict_file(Verdict.FAIL, (hostile,))
    head = verdict_file(Verdict.PASS, (case(TestStatus.PASSED, name=HOSTILE_NAME),))
    env.update({"INPUT_MODE": "compare", "GITHUB_EVENT_PATH": "/github/event.json"})
    seen: list[list[str]] = []

    def fake_verifier(argv: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        seen.append(argv)
        if verdict is not None:
            _write_compare_out(
                Path(argv[argv.index("--out") + 1]), compare_result(base, head, verdict)
            )
        return subprocess.CompletedProcess(argv, verifier_exit, b"::error::verifier\n", b"")

    verifier_seam(monkeypatch, fake_verifier)
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stream)
    assert action.main([], env) == step_exit
    assert seen and seen[0][1:5] == ["-I", "-m", "verify_pr.verify.cli", "compare"]
    outputs = Path(env["GITHUB_OUTPUT"]).read_text()
    if step_exit != StepExit.OK:
        assert "verdict<<" not in outputs
        if verifier_exit == 2:
            assert "fetch-depth: 0" in stream.getvalue()
        return
    assert verdict is not None
    assert f"\n{verdict.value}\n" in outputs and "\nCOMPLETED\n" in outputs
    upload = Path(outputs.split("out-dir<<", 1)[1].split("\n")[1])
    assert {p.name for p in upload.iterdir()} >= COMPARE_REQUIRED_FILES
    summary = Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert "verify-pr compare" in summary and "FAIL_TO_PASS" in summary
    assert "@octocat" not in summary and "(https://evil" not in summary
    # every untrusted text sits between stop-commands markers
    lines = stream.getvalue().splitlines()
    for text in (
        "::error::verifier",
        "::warning::from the base run",
        "::warning::from the head run",
    ):
        at = lines.index(text)
        opened = [i for i, line in enumerate(lines[:at]) if line.startswith("::stop-commands::")]
        token = lines[opened[-1]].removeprefix("::stop-commands::")
        assert f"::{token}::" in lines[opened[-1] : at + 2] or f"::{token}::" in lines[at:]
        assert f"::{token}::" not in lines[opened[-1] + 1 : at]
