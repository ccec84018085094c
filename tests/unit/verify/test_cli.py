"""``verify-pr run``: every refusal is exit 2 before anything runs; verdicts map to exit codes;
the summary shows PR strings escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.sandbox_helpers import make_repo
from verify_pr.models.report import ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.render.terminal import run_summary
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify import cli
from verify_pr.verify.runs import suite


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path, {"test_a.py": "def test_a():\n    pass\n", "pytest.ini": ""})


@pytest.fixture(autouse=True)
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("a refused invocation must not reach the sandbox")

    monkeypatch.setattr(suite, "run_sandbox", boom)


def base(repo: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "--repo", str(repo), "--out", str(out), "--image", "img:1", *extra]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE == 2, err
    assert err.startswith("verify-pr: refused: ")
    return err


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (["--runner", "nose"], "--runner must be 'auto'"),
        (["--report-format", "tap", "--command", "x {report}"], "--report-format must be"),
        (["--command", "pytest --junitxml={report}"], "go together"),
        (["--report-format", "junit"], "go together"),
        (
            [
                "--command",
                "pytest --junitxml={report}",
                "--report-format",
                "junit",
                "--runner",
                "pytest",
            ],
            "exclude each other",
        ),
        (["--command", "pytest", "--report-format", "junit"], "{report}"),
        (["--timeout", "0"], "--timeout"),
        (["--timeout", "3601"], "--timeout"),
        (["--timeout", "-5"], "--timeout"),
        (["--timeout", "1e3"], "--timeout"),
        (["--max-output", "0"], "--max-output"),
        (["--max-output", "1048577"], "--max-output"),
        (["--bogus"], "unrecognized"),
        (["--tim", "5"], "unrecognized"),  # no abbreviations
    ],
)
def test_argument_refusals(
    extra: list[str], why: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert why in refused(base(repo, tmp_path / "out", *extra), capsys)
    assert not (tmp_path / "out" / cli.VERDICT_FILE).exists()


def test_missing_mode_and_repo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused([], capsys)
    refused(["run", "--image", "img:1"], capsys)
    refused(["run", "--repo", str(tmp_path / "absent"), "--image", "img:1"], capsys)


@pytest.mark.parametrize("image", ["-evil", "has space", "a;b", ""])
def test_bad_image(
    image: str, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = base(repo, tmp_path / "out")
    argv[argv.index("img:1")] = image
    assert "--image" in refused(argv, capsys)


def test_out_inside_repo_or_holding_other_files(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "overlap" in refused(base(repo, repo / "out"), capsys)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("keep")
    assert "not verify-pr's" in refused(base(repo, busy), capsys)
    assert (busy / "mine.txt").read_text() == "keep"


def test_no_runner_detected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bare = make_repo(tmp_path / "bare", {"README": "x\n"})
    assert "no test runner detected" in refused(base(bare, tmp_path / "out"), capsys)


# --- exit codes per verdict, with the sandbox faked -------------------------------------------


def _result(status: RunStatus, code: int | None) -> SandboxResult:
    return SandboxResult(
        status=status,
        exit_code=code,
        output_truncated=False,
        detail="d",
        image="img:1",
        timeout_s=600,
        report=ReportStatus.RETURNED if code is not None else ReportStatus.MISSING,
    )


def _junit(status: str) -> bytes:
    body = {"passed": "", "failed": '<failure message="no"/>'}[status]
    return (
        '<testsuites name="pytest tests"><testsuite name="pytest">'
        f'<testcase classname="test_a" name="test_a" file="test_a.py" line="0">{body}</testcase>'
        "</testsuite></testsuites>"
    ).encode()


@pytest.mark.parametrize(
    ("status", "code", "report", "verdict"),
    [
        (RunStatus.COMPLETED, 0, _junit("passed"), Verdict.PASS),
        (RunStatus.COMPLETED, 1, _junit("failed"), Verdict.FAIL),
        (RunStatus.COMPLETED, 1, _junit("passed"), Verdict.NOT_PROVEN),
        (RunStatus.TIMEOUT, None, None, Verdict.NOT_PROVEN),
        (RunStatus.BLOCKED, None, None, Verdict.BLOCKED),
    ],
)
def test_exit_code_per_verdict(
    monkeypatch: pytest.MonkeyPatch,
    repo: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    status: RunStatus,
    code: int | None,
    report: bytes | None,
    verdict: Verdict,
) -> None:
    seen: list[str] = []

    def fake(request: object) -> SandboxRun:
        seen.append(getattr(request, "command", ""))
        return SandboxRun(_result(status, code), b"log\n", report)

    monkeypatch.setattr(suite, "run_sandbox", fake)
    out = tmp_path / "out"
    rc = cli.main(base(repo, out))
    expected = {Verdict.PASS: 0, Verdict.FAIL: 1, Verdict.BLOCKED: 3, Verdict.NOT_PROVEN: 4}
    assert rc == expected[verdict] == cli.EXIT_CODES[verdict]
    data = json.loads((out / cli.VERDICT_FILE).read_text())
    assert data["verdict"] == verdict.value
    VerdictFile.model_validate_json((out / cli.VERDICT_FILE).read_text())
    assert "--junitxml=/work/vpr-report-" in seen[0]
    assert capsys.readouterr().out.splitlines()[0].startswith(verdict.value.replace("_", " "))


def test_exit_codes_cover_every_verdict() -> None:
    assert set(cli.EXIT_CODES) == set(Verdict)
    assert sorted(cli.EXIT_CODES.values()) == [0, 1, 3, 4]


# --- summary ----------------------------------------------------------------------------------


def _verdict(verdict: Verdict, reasons: tuple[str, ...] = ("why",), **over: object) -> VerdictFile:
    cases = (TestCase.build(name="t", classname=None, file="f", line=1, status=TestStatus.PASSED),)
    report = TestReport.build(format=ReportFormat.JUNIT, testcases=cases)
    fields: dict[str, object] = {
        "verdict": verdict,
        "reasons": reasons,
        "runner": "pytest",
        "runner_version": "8.3.5",
        "command": "python3 -m pytest",
        "totals": report.totals,
        "testcases": cases,
        "sandbox": _result(RunStatus.COMPLETED, 0),
    }
    fields.update(over)
    return VerdictFile.model_validate(fields)


@pytest.mark.parametrize(
    ("verdict", "head"),
    [
        (Verdict.PASS, "PASS: "),
        (Verdict.FAIL, "FAIL: "),
        (Verdict.NOT_PROVEN, "NOT PROVEN: "),
        (Verdict.BLOCKED, "BLOCKED: "),
    ],
)
def test_summary_heads(verdict: Verdict, head: str) -> None:
    lines = run_summary(_verdict(verdict), Path("/o")).splitlines()
    assert lines[0].startswith(head)
    assert lines[1] == "runner: pytest 8.3.5"
    assert lines[2] == "tests: 1 total, 1 passed, 0 failed, 0 errors, 0 skipped, 0 expected to fail"
    assert lines[3] == "- why"
    assert lines[-1] == "files: /o"


def test_summary_without_totals_or_version() -> None:
    lines = run_summary(
        _verdict(Verdict.NOT_PROVEN, totals=None, runner_version=None, testcases=()), Path("/o")
    ).splitlines()
    assert lines[1] == "runner: pytest"
    assert not any(line.startswith("tests:") for line in lines)


def test_summary_escapes_pr_strings() -> None:
    """A reason can quote repo paths (conftest dirs): no escape sequence, no forged line."""
    text = run_summary(
        _verdict(Verdict.FAIL, ("2 conftest.py file(s) (\x1b[2Ka/\nPASS: fake/conftest.py)",)),
        Path("/o"),
    )
    assert "\x1b" not in text
    assert not any(line.startswith("PASS") for line in text.splitlines())
    assert "\\x1b[2Ka/\\nPASS: fake" in text
