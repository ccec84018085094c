"""The argument contract: every refusal is exit 2 with one line on stderr, before any run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sandbox_helpers import make_repo
from verify_pr import options
from verify_pr.contract import TIMEOUT_RANGE
from verify_pr.errors import InputRefused
from verify_pr.exit_codes import SandboxExit
from verify_pr.sandbox import cli


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path)


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == SandboxExit.REFUSED
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("verify-pr-sandbox: refused: ")
    return lines[0]


def base(repo: Path, out: Path, **over: str) -> list[str]:
    flags = {"--repo": str(repo), "--out": str(out), "--cmd": "true", "--image": "img:1"}
    flags.update(over)
    return [x for kv in flags.items() for x in kv]


@pytest.mark.parametrize("flag", ["--repo", "--out", "--cmd", "--image", "--timeout", "--report"])
def test_value_flag_without_value_is_refused(
    flag: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [a for a in base(repo, tmp_path / "o")]
    argv.append(flag)
    refused(argv, capsys)


def test_flag_followed_by_flag_is_refused(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(["--repo", "--out", str(tmp_path / "o"), "--cmd", "true", "--image", "i"], capsys)


@pytest.mark.parametrize("flag", ["--repo", "--out", "--cmd", "--image"])
def test_required_flags(
    flag: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = base(repo, tmp_path / "o")
    i = argv.index(flag)
    del argv[i : i + 2]
    assert flag in refused(argv, capsys)


def test_unknown_and_abbreviated_flags(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused([*base(repo, tmp_path / "o"), "--network", "host"], capsys)
    refused([*base(repo, tmp_path / "o"), "--time", "5"], capsys)


def test_repeated_flag_is_refused(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "more than once" in refused([*base(repo, tmp_path / "o"), "--cmd", "x"], capsys)


@pytest.mark.parametrize(
    ("text", "expected"), [("1", 1), ("010", 10), ("0600", 600), ("3600", 3600)]
)
def test_numbers_are_base_10(text: str, expected: int) -> None:
    assert options.parse_number("--timeout", text, 600, TIMEOUT_RANGE) == expected


@pytest.mark.parametrize(
    "text", ["0", "3601", "-1", "+5", " 5", "5 ", "0x10", "1_0", "1e3", "٣", "", "9" * 13]
)
def test_bad_numbers_are_refused(text: str) -> None:
    with pytest.raises(InputRefused):
        options.parse_number("--timeout", text, 600, TIMEOUT_RANGE)


def test_max_output_bounds() -> None:
    assert options.parse_number("--max-output", "1048576", 1, options.MAX_OUTPUT_RANGE) == 1048576
    with pytest.raises(InputRefused):
        options.parse_number("--max-output", "1048577", 1, options.MAX_OUTPUT_RANGE)


@pytest.mark.parametrize(
    "image", ["-rm", "img name", "img;rm", "img$(x)", "a" * 256, "img\n", "ímg"]
)
def test_bad_images_are_refused(image: str) -> None:
    with pytest.raises(InputRefused):
        options.check_image(image)


@pytest.mark.parametrize(
    "image", ["busybox", "verify-pr-minimal:local", "reg.example/a/b:1.2", "a@sha256:" + "0" * 64]
)
def test_good_images(image: str) -> None:
    assert options.check_image(image) == image


def test_overlong_value_is_refused(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(base(repo, tmp_path / "o", **{"--image": "a" * 5000}), capsys)
    refused(base(repo, tmp_path / "o", **{"--cmd": "x" * 70000}), capsys)


def test_print_argv_runs_nothing(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o"
    assert cli.main([*base(repo, out), "--print-argv"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("docker run --rm -i --pull never")
    assert "--network none" in line
    assert not out.exists()


def test_help_explains_files_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for word in ("result.json", "output.txt", "report.txt", "BLOCKED", "--max-output", "never"):
        assert word in text


def test_the_command_flushes_what_it_printed_before_its_fast_exit(
    repo: Path, tmp_path: Path
) -> None:
    # entry() ends with os._exit, which skips the interpreter's flush of a piped stdout: what
    # --print-argv printed (buffered, a pipe is not a terminal) must still arrive, as must a
    # refusal's line on stderr and its exit code.
    import os
    import subprocess
    import sys

    argv = [sys.executable, "-m", "verify_pr.sandbox.cli"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as in CI
    shown = subprocess.run(
        [*argv, *base(repo, tmp_path / "out"), "--print-argv"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert shown.returncode == SandboxExit.RAN and shown.stdout.startswith("docker run "), shown
    refused = subprocess.run([*argv, "--cmd", "true"], capture_output=True, text=True, env=env)
    assert refused.returncode == SandboxExit.REFUSED
    assert refused.stderr.startswith("verify-pr-sandbox: refused: --repo is required"), refused
