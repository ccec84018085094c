"""``verify-pr run --diff-base``: the flag's refusals (exit 2, before anything runs), what the
session measures from real git repositories (no container), the words for a run without a
proof, and the action's input and outputs. The containers' side: tests/integration/
test_run_coverage.py."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from tests.action.helpers import step_env, verdict_file, verifier_seam
from tests.git_helpers import commit, git, init_repo
from tests.sandbox_helpers import make_repo
from verify_pr import action
from verify_pr.errors import ConfigError
from verify_pr.github.settings import VerifySettings
from verify_pr.models.coverage import CoverageState, FileCoverage, PatchCoverage
from verify_pr.render.coverage import headline, meaning
from verify_pr.render.job_summary import run_job_summary
from verify_pr.runners.registry import runner_named
from verify_pr.verify import cli
from verify_pr.verify.coverage.run import start_run
from verify_pr.verify.runs import suite

CODE = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n\n\ndef helper(x):\n    return x\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


@pytest.fixture(autouse=True)
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_a: object, **_k: object) -> None:
        raise AssertionError("a refused invocation must not reach the sandbox")

    monkeypatch.setattr(suite, "run_sandbox", boom)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    path = init_repo(make_repo(tmp_path, {"pytest.ini": "[pytest]\n"}))
    base = commit(path, {"calc.py": CODE, "test_calc.py": TESTS}, "base")
    head = commit(path, {"calc.py": FIXED, "test_calc.py": TESTS + "\n"}, "fix, helper")
    return path, base, head


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code = cli.main(argv)
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE == 2, err
    assert err.startswith("verify-pr: refused: ")
    return err


@pytest.mark.parametrize("rev", ["a..b", "-x", "HEAD@{1}", "main.lock", "", "x" * 300, "a b"])
def test_bad_diff_base_text_is_refused(
    rev: str, repo: tuple[Path, str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--repo", str(repo[0]), "--out", str(tmp_path / "out"), "--image", "img:1"]
    assert "--diff-base must be" in _refused([*argv, f"--diff-base={rev}"], capsys)
    assert not (tmp_path / "out" / cli.VERDICT_FILE).exists()


def test_diff_base_needs_a_git_work_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = make_repo(tmp_path, {"test_a.py": "def test_a():\n    pass\n"})
    argv = ["run", "--repo", str(plain), "--out", str(tmp_path / "out"), "--image", "img:1"]
    assert "git work tree" in _refused([*argv, "--diff-base", "main"], capsys)


def test_the_session_measures_the_changed_code_lines(repo: tuple[Path, str, str]) -> None:
    path, base, _head = repo
    run = start_run(path, base, runner_named("pytest"))
    # the test file changed too, but only code is measured (compare's split)
    assert run.code == ["calc.py"] and run.session.files == ["calc.py"]
    assert run.session.changed == {"calc.py": (2, 3, 4, 5, 6)}
    assert not run.session.reason and run.session.has_proof is False


def test_a_base_that_is_not_there_is_not_measured(repo: tuple[Path, str, str]) -> None:
    path = repo[0]
    for rev in ("0" * 40, "no-such-branch"):
        run = start_run(path, rev, runner_named("pytest"))
        assert (
            run.session.reason.startswith("not measured: ")
            and "shallow clone" in run.session.reason
        )
        assert run.code == [] and run.session.files == []


def test_uncommitted_changes_to_a_measured_file_are_not_measured(
    repo: tuple[Path, str, str],
) -> None:
    path, base, _ = repo
    (path / "calc.py").write_text(FIXED + "\nX = 1\n")
    assert "uncommitted changes" in start_run(path, base, runner_named("pytest")).session.reason
    # the twin: a change outside the measured files leaves the figures
    git(path, "checkout", "--quiet", "--", "calc.py")
    (path / "notes.txt").write_text("x\n")
    (path / "test_calc.py").write_text(TESTS)
    assert not start_run(path, base, runner_named("pytest")).session.reason


def test_a_runner_without_a_tracer_is_said(repo: tuple[Path, str, str]) -> None:
    assert "bun has no coverage" in start_run(repo[0], repo[1], runner_named("bun")).session.reason


def _run_cov() -> PatchCoverage:
    entry = FileCoverage(path="calc.py", measured=True, changed=(2, 5, 6), run=(2,), not_run=(5, 6))
    return PatchCoverage(
        state=CoverageState.MEASURED, changed_lines=3, run_lines=1, has_proof=False, files=(entry,)
    )


def test_a_run_says_it_has_no_proof_rather_than_a_zero() -> None:
    cov = _run_cov()
    assert headline(cov) == "changed lines run: 1 of 3 (no proof in mode run)"
    assert any("no figure for what the proof ran" in line for line in meaning(cov))
    # the twin: compare's figures with a proof keep their "by the proof" figure
    with_proof = cov.model_copy(update={"has_proof": True, "proof_measured": True})
    assert headline(with_proof) == "changed lines run: 1 of 3 (by the proof: 0)"
    summary = run_job_summary(verdict_file().model_copy(update={"patch_coverage": cov}))
    assert "### Patch coverage" in summary and "`calc.py:5-6`" in summary
    assert "Patch coverage" not in run_job_summary(verdict_file())


def test_the_action_passes_diff_base_in_mode_run_only(tmp_path: Path) -> None:
    env = step_env(tmp_path)
    argv = action.verifier_argv(VerifySettings.from_env(env), Path("/o"))
    assert "--diff-base" not in argv  # empty: not measured
    env["INPUT_DIFF-BASE"] = "main"
    argv = action.verifier_argv(VerifySettings.from_env(env), Path("/o"))
    assert argv[argv.index("--diff-base") + 1] == "main"
    env.update({"INPUT_MODE": "compare", "GITHUB_EVENT_PATH": "/e.json"})
    with pytest.raises(ConfigError, match="diff-base applies to mode run only"):
        action.run(env, io.StringIO())


def test_a_diff_base_input_with_other_characters_is_refused(tmp_path: Path) -> None:
    env = step_env(tmp_path)
    env["INPUT_DIFF-BASE"] = "main; rm -rf /"
    with pytest.raises(ConfigError, match="invalid input diff-base"):
        VerifySettings.from_env(env)


def test_mode_run_sets_the_changed_lines_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = step_env(tmp_path)
    env["INPUT_DIFF-BASE"] = "main"

    def fake_verifier(argv: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        assert argv[argv.index("--diff-base") + 1] == "main"
        out = Path(argv[argv.index("--out") + 1])
        out.mkdir()
        verdict = verdict_file().model_copy(update={"patch_coverage": _run_cov()})
        (out / "verdict.json").write_text(verdict.model_dump_json())
        return subprocess.CompletedProcess(argv, 0, b"", b"")

    verifier_seam(monkeypatch, fake_verifier)
    assert action.main([], env) == 0
    outputs = Path(env["GITHUB_OUTPUT"]).read_text()
    assert "changed-lines<<" in outputs
    values = dict(_outputs(outputs))
    assert (values["changed-lines"], values["changed-lines-run"]) == ("3", "1")
    assert values["changed-lines-run-by-proof"] == ""  # a run has no proof
    assert (
        "changed lines run: 1 of 3 (no proof in mode run)"
        in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    )


def _outputs(text: str) -> list[tuple[str, str]]:
    """``name<<DELIM\nvalue\nDELIM`` entries of a GITHUB_OUTPUT file."""
    lines, found, i = text.split("\n"), [], 0
    while i < len(lines):
        if "<<" in lines[i]:
            name, delim = lines[i].split("<<", 1)
            end = lines.index(delim, i + 1)
            found.append((name, "\n".join(lines[i + 1 : end])))
            i = end
        i += 1
    return found
