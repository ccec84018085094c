"""The verify step without Docker: its inputs, the image pull check, the exit code table, the
summary, and untrusted output kept away from workflow commands. Credential refusal is in
test_verify_step_credentials.py, compare mode in test_verify_step_compare.py."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from tests.action.helpers import HOSTILE_NAME, step_env, verdict_file, verifier_seam
from verify_pr import action
from verify_pr.action.outputs import print_untrusted
from verify_pr.errors import ConfigError
from verify_pr.exit_codes import StepExit
from verify_pr.github.actions_io import ActionsIO
from verify_pr.github.settings import VerifySettings
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.verdict import Verdict
from verify_pr.render.job_summary import run_job_summary


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return step_env(tmp_path)


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

    verifier_seam(monkeypatch, fake_verifier)
    assert action.main([], env) == step_exit
    outputs = Path(env["GITHUB_OUTPUT"]).read_text()
    if step_exit == StepExit.OK:
        assert "verdict<<" in outputs and "\nPASS\n" in outputs
    else:
        assert "verdict<<" not in outputs


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
    with pytest.raises(ConfigError, match=f"--{name.lower()} must") as info:
        VerifySettings.from_env(env)
    assert info.value.hint.startswith(f"input {name.lower()}:")
