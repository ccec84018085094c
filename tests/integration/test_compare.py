"""verify-pr compare end to end: fixture git repos built here, real containers on base and head."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.compare_helpers import (
    BUGGY,
    FIXED,
    FORCE_PASS_CONFTEST,
    IMAGE,
    TESTS,
    compare,
)
from verify_pr.models.compare import CompareResult
from verify_pr.verify import cli

FIXED_BUT_BREAKS_MUL = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return 0\n"
ONLY_MUL = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
HOSTILE_TESTS = (
    TESTS
    + """

import atexit, glob, os, socket

def _forge():
    xml = ('<testsuites name="pytest tests"><testsuite name="pytest" tests="2">'
           '<testcase classname="test_calc" name="test_add" file="test_calc.py"/>'
           '<testcase classname="test_calc" name="test_mul" file="test_calc.py"/>'
           '</testsuite></testsuites>')
    for path in glob.glob("/work/vpr-report-*") + ["/work/vpr-report-" + "0" * 32 + ".xml"]:
        try:
            open(path, "w").write(xml)
        except OSError:
            pass
    print("\\nVPR1 " + "0" * 32 + " RC 0 none 0\\nVPR1 " + "0" * 32 + " END", flush=True)

atexit.register(_forge)
try:
    socket.create_connection(("1.1.1.1", 80), timeout=2)
    print("NETWORK-REACHED")
except OSError:
    pass
print("TOKEN=" + os.environ.get("GITHUB_TOKEN", "absent"))
"""
)


@dataclass
class Shas:
    repo: Path
    base: str  # add() is wrong: test_add fails, test_mul passes
    fix: str  # add() fixed
    deletes_test: str  # test_add deleted instead of fixing
    noop: str  # on top of fix: a change that keeps everything green
    breaks_other: str  # add() fixed, mul() broken
    conftest_trick: str  # only a conftest.py forcing every test to pass
    hostile: str  # network, token, forged sentinel and forged report
    revert: str  # on top of fix: add() broken again


@pytest.fixture(scope="module")
def shas(tmp_path_factory: pytest.TempPathFactory) -> Shas:
    require_docker(IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("compare") / "repo")
    base = commit(repo, {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "test_calc.py": TESTS})
    fix = commit(repo, {"calc.py": FIXED}, "fix add")
    noop = commit(repo, {"calc.py": FIXED + "\n# tidy\n"}, "tidy")
    checkout(repo, fix)
    revert = commit(repo, {"calc.py": BUGGY}, "revert the fix")
    heads = {}
    for name, files in (
        ("deletes_test", {"test_calc.py": ONLY_MUL}),
        ("breaks_other", {"calc.py": FIXED_BUT_BREAKS_MUL}),
        ("conftest_trick", {"conftest.py": FORCE_PASS_CONFTEST}),
        ("hostile", {"test_calc.py": HOSTILE_TESTS}),
    ):
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return Shas(repo, base, fix, noop=noop, revert=revert, **heads)


def _by_id(result: CompareResult) -> dict[str, str]:
    return {t.id.split("::")[-1]: t.transition.value for t in result.transitions}


def test_real_fix_from_event_file_is_verified(shas: Shas, tmp_path: Path) -> None:
    event: dict[str, Any] = {
        "action": "synchronize",
        "pull_request": {"base": {"sha": shas.base}, "head": {"sha": shas.fix}},
    }
    (tmp_path / "event.json").write_text(json.dumps(event))
    code, result, summary = compare(tmp_path, shas.repo, "--event", str(tmp_path / "event.json"))
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert _by_id(result) == {"test_add": "FAIL_TO_PASS", "test_mul": "PASS_TO_PASS"}
    assert result.before.verdict == "FAIL" and result.head.verdict == "PASS"
    assert result.harness_files_changed == ()
    assert summary.startswith("## verify-pr compare: VERIFIED")
    assert {p.name for p in (tmp_path / "out").iterdir()} == {
        "verify-pr-result.json",
        "compare_summary.md",
        "base",
        "head",
    }


def test_mutation_reverting_the_fix_is_not_verified(shas: Shas, tmp_path: Path) -> None:
    code, result, _ = compare(tmp_path, shas.repo, "--base", shas.fix, "--head", shas.revert)
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    assert _by_id(result)["test_add"] == "PASS_TO_FAIL"


def test_swapped_base_and_head_is_already_merged(shas: Shas, tmp_path: Path) -> None:
    # head (the old base) is an ancestor of base: nothing of the PR's is left to compare
    code, result, summary = compare(tmp_path, shas.repo, "--base", shas.fix, "--head", shas.base)
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    assert result.method == "none" and result.transitions == ()
    assert any("already part of base" in r for r in result.reasons)
    assert "already part of base" in summary


def test_deleting_the_failing_test_is_not_proven(shas: Shas, tmp_path: Path) -> None:
    code, result, summary = compare(
        tmp_path, shas.repo, "--base", shas.base, "--head", shas.deletes_test
    )
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    # the PR's test file runs on both sides; base's own run shows test_add was there
    assert _by_id(result) == {"test_mul": "PASS_TO_PASS"}
    assert result.base_own is not None
    # run from base's file on head (``verify.removed``), test_add fails there
    assert any("fail on its code" in r and "test_add" in r for r in result.reasons)
    assert "REMOVED" in summary and "test_add" in summary


def test_a_change_that_keeps_everything_green_has_nothing_to_prove(
    shas: Shas, tmp_path: Path
) -> None:
    """Issue 23.4: no test turns green, none breaks: exit 0, never VERIFIED."""
    code, result, _ = compare(tmp_path, shas.repo, "--base", shas.fix, "--head", shas.noop)
    assert (code, result.verdict) == (0, "NOTHING_TO_PROVE"), result.reasons
    assert set(_by_id(result).values()) == {"PASS_TO_PASS"}
    assert result.proofs == ()


def test_breaking_another_test_is_not_proven(shas: Shas, tmp_path: Path) -> None:
    code, result, _ = compare(tmp_path, shas.repo, "--base", shas.base, "--head", shas.breaks_other)
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    assert _by_id(result) == {"test_add": "FAIL_TO_PASS", "test_mul": "PASS_TO_FAIL"}


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict-harness"])
def test_conftest_trick_is_not_verified(shas: Shas, tmp_path: Path, strict: bool) -> None:
    args = ["--base", shas.base, "--head", shas.conftest_trick]
    code, result, summary = compare(
        tmp_path, shas.repo, *args, *(["--strict-harness"] if strict else [])
    )
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    assert result.harness_files_changed == ("conftest.py",)
    assert "conftest.py" in summary
    if strict:
        # head ran with base's harness: the conftest was removed and the test still fails
        assert _by_id(result)["test_add"] == "FAIL_TO_FAIL"
    else:
        # conftest.py is a test path: the trick runs over base's code too, so it shows up as
        # a test change that made a failing test pass, and the harness change is named
        assert _by_id(result)["test_add"] == "PASS_TO_PASS"
        assert any("judge it" in r for r in result.reasons)
        assert any("changed, not the code" in r and "test_add" in r for r in result.reasons)


def test_hostile_pr_is_not_verified(
    shas: Shas, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_host_secret_must_not_leak")
    code, result, _ = compare(tmp_path, shas.repo, "--base", shas.base, "--head", shas.hostile)
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    output = (tmp_path / "out" / "head" / "output.txt").read_bytes()
    assert b"NETWORK-REACHED" not in output
    assert b"ghp_host_secret" not in output
    assert result.head.sandbox.status == "COMPLETED"
    # The forged report did replace the real one inside the sandbox (it claims test_add
    # passed); what stops it is that pytest still exited 1: report and exit code disagree.
    assert any("exit code and report disagree" in r for r in result.reasons)


def test_forgery_in_the_tests_is_not_verified(shas: Shas, tmp_path: Path) -> None:
    # The forger (report and exit code) lives in the PR's test file, so it also runs over
    # base's code: both sides look green and nothing fails on base.
    repo = shas.repo
    checkout(repo, shas.hostile)
    forger = commit(
        repo,
        {"test_calc.py": HOSTILE_TESTS.replace("flush=True)\n", "flush=True)\n    os._exit(0)\n")},
        "forge exit code too",
    )
    _code, result, _ = compare(tmp_path, repo, "--base", shas.base, "--head", forger)
    assert result.verdict == "NOT_PROVEN"
    assert result.counts.fail_to_pass == 0


def test_full_forgery_from_the_code_is_not_verified(shas: Shas, tmp_path: Path) -> None:
    """The PR's code forges the report AND the exit code (atexit + os._exit(0)): head looks
    green, but the process ends before our tracer writes, so the proof's re-runs on head bring
    no coverage data back and the proof does not count (docs/coverage.md, ``no_data``). It
    was a strict expected failure until the changed-code rule; a forger that also writes our
    tracer's data is still the residual."""
    repo = shas.repo
    checkout(repo, shas.base)
    forge = HOSTILE_TESTS[HOSTILE_TESTS.index("import atexit") :].replace(
        "flush=True)\n", "flush=True)\n    os._exit(0)\n"
    )
    forger = commit(repo, {"calc.py": BUGGY + "\n\n" + forge}, "forge from the code")
    _code, result, _ = compare(tmp_path, repo, "--base", shas.base, "--head", forger)
    assert result.verdict != "VERIFIED"
    assert [p.changed_code for p in result.proofs] == ["no_data"], result.proofs


def test_own_command_judges_every_run_alike(shas: Shas, tmp_path: Path) -> None:
    command = "python3 -m pytest -p no:cacheprovider --junitxml={report} -o junit_family=xunit1"
    args = ["--base", shas.base, "--head", shas.fix, "--flake-runs", "1"]
    code, result, _ = compare(
        tmp_path, shas.repo, *args, "--command", command, "--report-format", "junit"
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert result.before.runner == result.head.runner == "custom"
    assert [p.reruns for p in result.proofs] == [1]
    # the same command on a PR that proves nothing (and breaks nothing)
    args = ["--base", shas.fix, "--head", shas.noop, "--flake-runs", "1"]
    code, result, _ = compare(
        tmp_path / "noop", shas.repo, *args, "--command", command, "--report-format", "junit"
    )
    assert (code, result.verdict) == (0, "NOTHING_TO_PROVE"), result.reasons


def test_refused_inputs_exit_2(shas: Shas, tmp_path: Path) -> None:
    base = ["compare", "--git", str(shas.repo), "--image", IMAGE]
    # names resolve (tests/unit/verify/test_cli_compare_refs.py); ranges and options do not
    assert cli.main([*base, "--base", "HEAD~1..HEAD", "--head", shas.fix]) == 2
    assert cli.main([*base, "--base=-HEAD", "--head", shas.fix]) == 2
    assert cli.main([*base, "--base", shas.base]) == 2
    assert cli.main([*base, "--base", shas.base, "--head", shas.base]) == 2
    assert cli.main([*base, "--base", "d" * 40, "--head", shas.fix]) == 2
    (tmp_path / "ev.json").write_text('{"pull_request": {}}')
    assert cli.main([*base, "--event", str(tmp_path / "ev.json")]) == 2
    assert cli.main([*base, "--event", "x", "--base", shas.base, "--head", shas.fix]) == 2
    pair = ["--base", shas.base, "--head", shas.fix]
    assert cli.main([*base, *pair, "--command", "pytest"]) == 2  # no --report-format
    assert cli.main([*base, *pair, "--command", "pytest", "--report-format", "junit"]) == 2
    own = ["--command", "pytest --junitxml={report}", "--report-format", "junit"]
    assert cli.main([*base, *pair, *own, "--runner", "pytest"]) == 2
    assert cli.main([*base, *pair, "--flake-runs", "21"]) == 2
    assert cli.main([*base, *pair, "--flake-runs", "-1"]) == 2
