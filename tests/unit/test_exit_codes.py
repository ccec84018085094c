"""One exit-code table: a crash has its own code in every entry point, never a verdict's."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from verify_pr import action, exit_codes
from verify_pr.action import step
from verify_pr.errors import InputRefused, SandboxBlocked
from verify_pr.models.compare import CompareVerdict
from verify_pr.models.verdict import Verdict
from verify_pr.sandbox import cli as sandbox_cli
from verify_pr.verify import cli as verify_cli


def _raise(exc: BaseException) -> Callable[..., int]:
    def boom(*_args: object, **_kwargs: object) -> int:
        raise exc

    return boom


def test_crash_code_is_no_verdict_code() -> None:
    verdict_codes = set(verify_cli.EXIT_CODES.values()) | set(
        verify_cli.COMPARE_EXIT_CODES.values()
    )
    assert exit_codes.CRASHED not in verdict_codes
    assert exit_codes.CRASHED not in {exit_codes.REFUSED, exit_codes.BLOCKED}
    assert set(verify_cli.EXIT_CODES) == set(Verdict)
    assert set(verify_cli.COMPARE_EXIT_CODES) == set(CompareVerdict)


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        (RuntimeError("a bug"), exit_codes.CRASHED),
        (KeyError("missing"), exit_codes.CRASHED),
        (InputRefused("bad flag"), verify_cli.EXIT_USAGE),
        (SandboxBlocked("no daemon"), verify_cli.EXIT_CODES[Verdict.BLOCKED]),
    ],
)
def test_verify_cli_rows(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: int,
) -> None:
    monkeypatch.setattr(verify_cli, "_main", _raise(raised))
    assert verify_cli.main(["run"]) == code
    err = capsys.readouterr().err
    if code == exit_codes.CRASHED:
        assert "crashed (a bug in verify-pr, not a verdict on the PR)" in err
        assert "Traceback" in err


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        (RuntimeError("a bug"), sandbox_cli.EXIT_CRASHED),
        (InputRefused("bad flag"), sandbox_cli.EXIT_REFUSED),
        (SandboxBlocked("no daemon"), sandbox_cli.EXIT_BLOCKED),
    ],
)
def test_sandbox_cli_rows(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: int,
) -> None:
    monkeypatch.setattr(sandbox_cli, "_main", _raise(raised))
    assert sandbox_cli.main([]) == code
    assert (
        len(
            {
                sandbox_cli.EXIT_RAN,
                sandbox_cli.EXIT_REFUSED,
                sandbox_cli.EXIT_BLOCKED,
                sandbox_cli.EXIT_CRASHED,
            }
        )
        == 4
    )
    if code == sandbox_cli.EXIT_CRASHED:
        assert "verify-pr-sandbox: crashed" in capsys.readouterr().err


def test_action_crash_sets_status_crashed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    output = tmp_path / "output"
    output.touch()
    env = {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")}
    monkeypatch.setattr(step, "run", _raise(RuntimeError("a bug")))
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    assert action.main([], env) == action.EXIT_CRASHED
    assert "crashed" in output.read_text()
    assert "verify-pr crashed: RuntimeError: a bug" in stdout.getvalue()
    assert "Traceback" in capsys.readouterr().err
