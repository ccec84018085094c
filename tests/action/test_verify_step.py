"""The verify step without Docker: credential refusal, modes, the image pull check, the summary,
and untrusted output kept away from workflow commands."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from tests.action.compare_builders import case, compare_result
from tests.action.helpers import HOSTILE_NAME, verdict_file
from verify_pr import action
from verify_pr.action.outputs import print_untrusted
from verify_pr.errors import ConfigError
from verify_pr.exit_codes import StepExit
from verify_pr.github.actions_io import ActionsIO
from verify_pr.github.credentials import held_credentials
from verify_pr.github.settings import VerifySettings
from verify_pr.models.compare import (
    COMPARE_ARTIFACT_FILES,
    COMPARE_REQUIRED_FILES,
    CompareResult,
    CompareVerdict,
)
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.verdict import Verdict
from verify_pr.render.job_summary import run_job_summary


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "ws").mkdir()
    (tmp_path / "temp").mkdir()
    for name in ("out", "summary"):
        (tmp_path / name).touch()
    return {
        "INPUT_IMAGE": "verify-pr-python:local",
        "GITHUB_WORKSPACE": str(tmp_path / "ws"),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "PATH": "/usr/bin:/bin",
    }


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://token.actions.example/x"),
        ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "eyJ"),
        ("GITHUB_TOKEN", "ghs_x"),
        ("GH_TOKEN", "ghp_x"),
        ("NPM_TOKEN", "x"),
        ("DEPLOY_SECRET", "x"),
        ("INPUT_GITHUB-TOKEN", "x"),
        ("SOMETHING", "ghp_" + "a" * 36),
    ],
)
def test_credentials_in_the_job_are_refused(env: dict[str, str], name: str, value: str) -> None:
    env[name] = value
    stream = io.StringIO()
    with pytest.raises(ConfigError, match="refusing to run with credentials") as caught:
        action.run(env, stream)
    assert value not in caught.value.diagnostics() or len(value) < 3
    assert "permissions: {}" in caught.value.diagnostics()
    assert Path(env["GITHUB_OUTPUT"]).read_text() == ""


def test_persisted_checkout_credentials_are_refused(env: dict[str, str]) -> None:
    git = Path(env["GITHUB_WORKSPACE"]) / ".git"
    git.mkdir()
    (git / "config").write_text(
        '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n'
    )
    with pytest.raises(ConfigError, match="persist-credentials"):
        action.run(env, io.StringIO())


def test_main_maps_a_refusal_to_exit_2_with_an_encoded_error(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    env["GITHUB_TOKEN"] = "ghs_x"
    assert action.main([], env) == StepExit.REFUSED
    out = capsys.readouterr().out
    assert out.startswith("::error title=verify-pr refused::") and out.count("\n") == 1


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

    monkeypatch.setattr(subprocess, "run", fake_verifier)
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


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("INPUT_MODE", "other"),
        ("INPUT_TIMEOUT", "0"),
        ("INPUT_TIMEOUT", "ten"),
        ("INPUT_RUNNER", "mocha"),
        ("INPUT_PULL-IMAGE-DIGEST", "yes"),
        ("INPUT_PATH", "../x"),
        ("INPUT_RETENTION-DAYS", "91"),
        ("INPUT_IMAGE", "-rm"),
    ],
)
def test_bad_inputs_are_config_errors(env: dict[str, str], name: str, value: str) -> None:
    env[name] = value
    with pytest.raises(ConfigError):
        VerifySettings.from_env(env).repo  # noqa: B018


@pytest.mark.parametrize(
    "image",
    [
        "ghcr.io/o/img@sha256:" + "a" * 64,
        "registry.example:5000/team/img@sha256:" + "0" * 64,
    ],
)
def test_pull_accepts_digests(image: str) -> None:
    assert action.check_pull_image(image) == image


@pytest.mark.parametrize(
    "image",
    [
        "ghcr.io/o/img:latest",
        "ghcr.io/o/img:1.0@sha256:" + "a" * 64,
        "img@sha256:" + "a" * 63,
        "img@sha256:" + "A" * 64,
        "img",
        "--all-tags@sha256:" + "a" * 64,
    ],
)
def test_pull_refuses_tags(image: str) -> None:
    with pytest.raises(ConfigError, match="digest"):
        action.check_pull_image(image)


def test_summary_escapes_pr_strings() -> None:
    case = TestCase.build(
        name=HOSTILE_NAME,
        classname=None,
        file="t.py",
        line=2,
        status=TestStatus.FAILED,
        message="@admin <script>",
    )
    text = run_job_summary(verdict_file(Verdict.FAIL, (case,)))
    assert "verify-pr: FAIL" in text
    assert "@octocat" not in text and "@admin" not in text and "<script>" not in text
    assert "(https://evil" not in text


def test_untrusted_output_cannot_issue_commands(tmp_path: Path) -> None:
    stream = io.StringIO()
    io_ = ActionsIO(output_path=tmp_path / "o", summary_path=tmp_path / "s", stream=stream)
    print_untrusted(io_, "output", b"::set-env name=X::y\n::add-mask::z\n")
    lines = stream.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[start].removeprefix("::stop-commands::")
    end = lines.index(f"::{token}::")
    assert start < lines.index("::set-env name=X::y") < end
    assert len(token) == 32


@pytest.mark.parametrize(
    ("verifier_exit", "step_exit"),
    [
        (0, StepExit.OK),
        (1, StepExit.CRASHED),  # FAIL's code over a PASS verdict file: they disagree
        (3, StepExit.CRASHED),  # BLOCKED's code and no verdict file
        (2, StepExit.REFUSED),
        (70, StepExit.CRASHED),
    ],
)
def test_exit_code_table(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, verifier_exit: int, step_exit: int
) -> None:
    import subprocess

    def fake_verifier(argv: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        out = Path(argv[argv.index("--out") + 1])
        if verifier_exit in (0, 1):
            out.mkdir()
            v = verdict_file()
            (out / "verdict.json").write_text(v.model_dump_json())
            (out / "output.txt").write_text("::warning::from the PR\n")
        return subprocess.CompletedProcess(argv, verifier_exit, b"", b"")

    monkeypatch.setattr(subprocess, "run", fake_verifier)
    assert action.main([], env) == step_exit
    outputs = Path(env["GITHUB_OUTPUT"]).read_text()
    if step_exit == StepExit.OK:
        assert "verdict<<" in outputs and "\nPASS\n" in outputs
    else:
        assert "verdict<<" not in outputs


def _v6_checkout(workspace: Path, creds: Path, body: str) -> None:
    """What actions/checkout v6 leaves: an includeIf line pointing at a credentials file."""
    git = workspace / ".git"
    git.mkdir(exist_ok=True)
    creds.write_text(body)
    (git / "config").write_text(
        f'[core]\n\trepositoryformatversion = 0\n[includeIf "gitdir:{git}"]\n\tpath = {creds}\n'
    )


def test_v6_credentials_file_is_refused(env: dict[str, str], tmp_path: Path) -> None:
    creds = tmp_path / "git-credentials-0b5c.config"
    _v6_checkout(
        Path(env["GITHUB_WORKSPACE"]),
        creds,
        '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n',
    )
    with pytest.raises(ConfigError, match="persist-credentials") as caught:
        action.run(env, io.StringIO())
    assert str(creds) in caught.value.diagnostics()
    assert "eA==" not in caught.value.diagnostics()


def test_v6_include_without_credentials_is_accepted(tmp_path: Path) -> None:
    """Positive control of the include walk: an included file with no credential is fine."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    _v6_checkout(workspace, tmp_path / "other.config", "[user]\n\tname = x\n")
    assert held_credentials({}, workspace) == []


@pytest.mark.parametrize("form", ["relative", "home", "nested", "plain-include", "quoted"])
def test_included_credentials_are_found_in_every_form(tmp_path: Path, form: str) -> None:
    workspace = tmp_path / "ws"
    git = workspace / ".git"
    git.mkdir(parents=True)
    secret = "[http]\n\textraheader = AUTHORIZATION: basic eA==\n"
    home = tmp_path / "home"
    home.mkdir()
    (home / "creds").write_text(secret)
    (git / "creds").write_text(secret)
    (tmp_path / "inner").write_text(secret)
    (tmp_path / "outer").write_text(f"[include]\n\tpath = {tmp_path / 'inner'}\n")
    line = {
        "relative": '[includeIf "gitdir:/x/"]\n\tpath = creds\n',
        "home": '[includeIf "onbranch:main"]\n  path = ~/creds\n',
        "nested": f"[include]\n\tpath = {tmp_path / 'outer'}\n",
        "plain-include": "[include]\npath=creds\n",
        "quoted": f'[includeIf "gitdir:/x/"]\n\tpath = "{git / "creds"}"\n',
    }[form]
    (git / "config").write_text(line)
    found = held_credentials({"HOME": str(home)}, workspace)
    assert len(found) == 1 and "persisted credentials" in found[0], found


def test_include_cycle_ends(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    git = workspace / ".git"
    git.mkdir(parents=True)
    (git / "config").write_text("[include]\n\tpath = config\n")
    assert held_credentials({}, workspace) == []


def test_check_pull_refusal_goes_to_stderr(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The step captures stdout with $(...): the reason must be on stderr, stdout empty."""
    env["INPUT_IMAGE"] = "project-tests:base"
    assert action.main(["check-pull"], env) == StepExit.REFUSED
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "pull-image-digest needs a digest-pinned image" in captured.err


COMMAND = "python3 -P -m pytest -p no:cacheprovider --junitxml={report}"


@pytest.mark.parametrize("mode", ["run", "compare"])
def test_command_and_report_format_reach_both_modes(env: dict[str, str], mode: str) -> None:
    env.update(
        {
            "INPUT_MODE": mode,
            "INPUT_COMMAND": COMMAND,
            "INPUT_REPORT-FORMAT": "junit",
            "GITHUB_EVENT_PATH": "/e.json",
        }
    )
    settings = VerifySettings.from_env(env)
    build = action.compare_argv if mode == "compare" else action.verifier_argv
    argv = build(settings, Path("/o"))
    assert argv[argv.index("--command") + 1] == COMMAND
    assert argv[argv.index("--report-format") + 1] == "junit"
    assert "--runner" not in argv


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ({"INPUT_COMMAND": COMMAND}, "go together"),
        ({"INPUT_REPORT-FORMAT": "junit"}, "go together"),
        (
            {"INPUT_COMMAND": COMMAND, "INPUT_REPORT-FORMAT": "junit", "INPUT_RUNNER": "pytest"},
            "exclude each other",
        ),
    ],
)
def test_command_inputs_are_refused_when_incomplete(
    env: dict[str, str], inputs: dict[str, str], said: str
) -> None:
    env.update(inputs)
    with pytest.raises(ConfigError, match=said):
        action.run(env, io.StringIO())


def test_a_report_format_outside_the_list_is_refused(env: dict[str, str]) -> None:
    env.update({"INPUT_COMMAND": COMMAND, "INPUT_REPORT-FORMAT": "tap"})
    with pytest.raises(ConfigError, match="report-format"):
        VerifySettings.from_env(env)


def test_resources_default_to_the_runners_cores_and_reach_both_modes(env: dict[str, str]) -> None:
    env.update({"INPUT_MODE": "compare", "GITHUB_EVENT_PATH": "/e.json"})
    argv = action.compare_argv(VerifySettings.from_env(env), Path("/o"))
    assert argv[argv.index("--cpus") + 1] == action.runner_cpus()
    assert argv[argv.index("--memory") + 1] == "512m"
    assert argv[argv.index("--flake-runs") + 1] == "3"
    env.update({"INPUT_MODE": "run", "INPUT_CPUS": "1.5", "INPUT_MEMORY": "2g"})
    argv = action.verifier_argv(VerifySettings.from_env(env), Path("/o"))
    assert argv[argv.index("--cpus") + 1] == "1.5"
    assert argv[argv.index("--memory") + 1] == "2g"
    assert "--flake-runs" not in argv


@pytest.mark.parametrize(
    ("name", "value"), [("CPUS", "many"), ("MEMORY", "2t"), ("FLAKE-RUNS", "21")]
)
def test_bad_resource_inputs_are_refused(env: dict[str, str], name: str, value: str) -> None:
    env[f"INPUT_{name}"] = value
    with pytest.raises(ConfigError, match="invalid input"):
        VerifySettings.from_env(env)
