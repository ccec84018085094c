"""The CLIs print plain text: on a terminal with a test's message line by line; to a file or a
pipe ``run`` prints its summary only and ``compare`` the same plain text (its Markdown is
compare_summary.md's, which the action reads). The terminal is a real
pseudo-terminal standing in for stdout; the sandbox and the comparison are the fakes at the
seams the other CLI tests use."""

from __future__ import annotations

import os
import pty
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.git_helpers import commit, init_repo
from tests.golden.cases import compare_results, lists
from tests.sandbox_helpers import make_repo
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import VerdictFile
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify import cli, compare_run
from verify_pr.verify.decision.summary_lists import summary_markdown
from verify_pr.verify.runs import suite

DIFF = "assert [1, 2, 4] == [1, 2, 3]\n  At index 2 diff: 4 != 3\n  Full diff:\n  - [1, 2, 3]"


@contextmanager
def terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """sys.stdout on a pty for the block; yields the list the text lands in afterwards. A
    thread drains the pty while the CLI writes, so no output size can fill it and block."""
    leader, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the follower side is closed and everything was read
                return
            if not chunk:
                return
            chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    got: list[str] = []
    try:
        with os.fdopen(follower, "w", encoding="utf-8") as tty:
            assert tty.isatty()
            monkeypatch.setattr(sys, "stdout", tty)
            yield got
            tty.flush()
            monkeypatch.undo()
    finally:
        reader.join()
        os.close(leader)
    got.append(b"".join(chunks).decode("utf-8").replace("\r\n", "\n"))


def _junit() -> bytes:
    message = DIFF.replace("\n", "&#10;").replace('"', "&quot;")
    return (
        '<testsuites name="pytest tests"><testsuite name="pytest">'
        '<testcase classname="test_a" name="test_a" file="test_a.py" line="1">'
        f'<failure message="{message}"/></testcase></testsuite></testsuites>'
    ).encode()


@pytest.fixture
def run_argv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    result = SandboxResult(
        status=RunStatus.COMPLETED,
        exit_code=1,
        output_truncated=False,
        detail="d",
        image="img:1",
        timeout_s=600,
        report=ReportStatus.RETURNED,
    )
    monkeypatch.setattr(suite, "run_sandbox", lambda _r: SandboxRun(result, b"log\n", _junit()))
    repo = make_repo(tmp_path, {"test_a.py": "def test_a():\n    assert 0\n", "pytest.ini": ""})
    return ["run", "--repo", str(repo), "--out", str(tmp_path / "out"), "--image", "img:1"]


def test_run_on_a_terminal_shows_the_failure_as_the_runner_wrote_it(
    run_argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with terminal(monkeypatch) as got:
        assert cli.main(run_argv) == 1
    (text,) = got
    lines = text.splitlines()
    assert lines[0].startswith("FAIL: ")
    start = lines.index("- test_a.py::test_a at test_a.py:2")  # JUnit's line is 0-based
    assert lines[start + 1 : start + 5] == [
        "    assert [1, 2, 4] == [1, 2, 3]",
        "      At index 2 diff: 4 != 3",
        "      Full diff:",
        "      - [1, 2, 3]",
    ]


def test_run_to_a_pipe_prints_what_it_always_did(
    run_argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(run_argv) == 1
    out = capsys.readouterr().out
    assert "Full diff" not in out  # the summary only: reasons, not messages
    assert out.splitlines()[-1].startswith("files: ")


@pytest.fixture
def compare_argv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    result = compare_results()["verified"]

    def outcome(verdict: VerdictFile) -> suite.SuiteOutcome:
        return suite.SuiteOutcome(verdict, SandboxRun(verdict.sandbox, b"", None))

    def fake(_request: compare_run.CompareRequest, _settings: object) -> compare_run.CompareRun:
        return compare_run.CompareRun(
            result, outcome(result.before), outcome(result.head), findings=lists(result)
        )

    monkeypatch.setattr(compare_run, "run_compare", fake)
    repo = init_repo(tmp_path / "src")
    base = commit(repo, {"a.py": "1\n"})
    head = commit(repo, {"a.py": "2\n"})
    args = ["compare", "--git", str(repo), "--base", base, "--head", head, "--image", "i:1"]
    return [*args, "--out", str(tmp_path / "out")]


def test_compare_on_a_terminal_is_plain_text(
    compare_argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with terminal(monkeypatch) as got:
        assert cli.main(compare_argv) == 0
    (text,) = got
    lines = text.splitlines()
    assert lines[0] == "VERIFIED: the PR's code turns failing tests green, and breaks none"
    assert "- tests/test_calc.py::test_fix at tests/test_calc.py:9" in lines  # pytest's id
    assert "    assert add(2, 3) == 5" in lines
    assert "      -1 != 5" in lines  # the second line of the message, still its own line
    assert not any(mark in text for mark in ("**FAIL_TO_PASS**", "`", "|---", "\\", "## "))
    assert lines[-1].startswith("files: ")


def test_compare_to_a_pipe_prints_plain_text_and_the_markdown_to_its_file(
    compare_argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A pipe gets what a terminal gets (no ``median(\\[4\\])``): the Markdown is the file's."""
    assert cli.main(compare_argv) == 0
    out = capsys.readouterr().out
    verified = compare_results()["verified"]
    markdown = summary_markdown(verified, lists(verified))
    assert out.startswith("VERIFIED: the PR's code turns failing tests green, and breaks none\n")
    assert not any(mark in out for mark in ("**FAIL_TO_PASS**", "`", "|---", "\\", "## "))
    assert (tmp_path / "out" / "compare_summary.md").read_text(encoding="utf-8") == markdown
    assert out.splitlines()[-1].startswith("files: ")
