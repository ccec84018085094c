"""One bad value, one refusal: verify-pr's command line and the action's inputs check each
option through ``verify_pr.options``, so the same value is refused in the same words and with
the same exit code (2) whichever entry point it reached."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sandbox_helpers import make_repo
from verify_pr import action
from verify_pr.exit_codes import RunExit, StepExit
from verify_pr.verify import cli
from verify_pr.verify.runs import suite

COMMAND = "pytest --junitxml={report}"
# (flags on verify-pr's command line, the same as the action's inputs)
BAD = [
    ({"--timeout": "0"}, {}),
    ({"--timeout": "ten"}, {}),
    ({"--timeout": "3601"}, {}),
    ({"--max-output": "0"}, {}),
    ({"--max-output": "1048577"}, {}),
    ({"--cpus": "many"}, {}),
    ({"--cpus": "65"}, {}),
    ({"--memory": "2t"}, {}),
    ({"--memory": "100m"}, {}),
    ({"--image": "-rm"}, {}),
    ({"--image": ".img"}, {}),
    ({"--runner": "nose"}, {}),
    ({"--command": "x {report}", "--report-format": "tap"}, {}),
    ({"--command": COMMAND}, {}),
    ({"--report-format": "junit"}, {}),
    ({"--command": COMMAND, "--report-format": "junit", "--runner": "pytest"}, {}),
    ({"--flake-runs": "21"}, {"mode": "compare"}),
    ({"--flake-runs": "-1"}, {"mode": "compare"}),
]


@pytest.fixture(autouse=True)
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("a refused invocation must not reach the sandbox")

    monkeypatch.setattr(suite, "run_sandbox", boom)


def _cli_refusal(
    tmp_path: Path, flags: dict[str, str], mode: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    flags = {"--image": "img:1", **flags}
    given = [f"{flag}={value}" for flag, value in flags.items()]  # "--image=-rm" is a value
    if mode == "compare":
        git = make_repo(tmp_path / "git", {"a.py": ""})
        argv = ["compare", "--git", str(git), "--base", "a" * 40, "--head", "b" * 40]
    else:
        repo = make_repo(tmp_path, {"test_a.py": "def test_a():\n    pass\n"})
        argv = ["run", "--repo", str(repo)]
    code = cli.main([*argv, "--out", str(tmp_path / "out"), *given])
    err = capsys.readouterr().err
    prefix = "verify-pr: refused: "
    assert err.startswith(prefix), err
    return code, err.removeprefix(prefix).rstrip("\n")


def _action_refusal(
    tmp_path: Path, flags: dict[str, str], mode: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    (tmp_path / "ws").mkdir(parents=True)
    (tmp_path / "temp").mkdir()
    for name in ("out", "summary"):
        (tmp_path / name).touch()
    env = {
        "INPUT_IMAGE": "img:1",
        "INPUT_MODE": mode,
        "GITHUB_WORKSPACE": str(tmp_path / "ws"),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        **{f"INPUT_{flag[2:].upper()}": value for flag, value in flags.items()},
    }
    code = action.main([], env)
    out = capsys.readouterr().out
    prefix = "::error title=verify-pr refused::"
    (line,) = [line for line in out.splitlines() if line.startswith("::error")]
    assert line.startswith(prefix), out
    message, hint = line.removeprefix(prefix).rsplit(" (input", 1)
    assert hint.startswith(("s ", " ")), line  # the action names the input(s) in its hint
    return code, message


@pytest.mark.parametrize(("flags", "extra"), BAD, ids=lambda v: " ".join(f"{k}={v[k]}" for k in v))
def test_the_same_bad_value_is_refused_alike_by_both_entry_points(
    flags: dict[str, str],
    extra: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mode = extra.get("mode", "run")
    cli_code, cli_said = _cli_refusal(tmp_path / "cli", flags, mode, capsys)
    action_code, action_said = _action_refusal(tmp_path / "action", flags, mode, capsys)
    assert cli_code == RunExit.REFUSED == StepExit.REFUSED == action_code == 2
    assert cli_said == action_said
    assert any(flag in cli_said for flag in flags), cli_said  # it names the flag


def test_good_values_pass_both_entry_points_checks(tmp_path: Path) -> None:
    """Positive control: the values beside each bad one are accepted by both."""
    from verify_pr.github.settings import VerifySettings

    (tmp_path / "ws").mkdir()
    settings = VerifySettings.from_env(
        {
            "INPUT_IMAGE": "img:1",
            "INPUT_TIMEOUT": "3600",
            "INPUT_MAX-OUTPUT": "1048576",
            "INPUT_CPUS": "64",
            "INPUT_MEMORY": "512m",
            "INPUT_COMMAND": COMMAND,
            "INPUT_REPORT-FORMAT": "junit",
            "INPUT_FLAKE-RUNS": "20",
            "GITHUB_WORKSPACE": str(tmp_path / "ws"),
            "RUNNER_TEMP": str(tmp_path),
        }
    )
    assert (settings.timeout, settings.max_output, settings.cpus) == (3600, 1 << 20, "64")
    assert settings.flake_runs == 20
    good = ["--image", "img:1", "--timeout", "3600", "--cpus", "64", "--flake-runs", "20"]
    suite_flags = ["--command", COMMAND, "--report-format", "junit"]
    ns = cli.build_parser().parse_args(["compare", "--git", ".", *good, *suite_flags])
    flags = cli.shared_args(ns)
    assert (flags.limits.timeout_s, flags.limits.resources.cpus) == (3600, 64.0)
