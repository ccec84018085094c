"""Patch coverage in `verify-pr run --diff-base REV` (real containers): which of the lines the
work tree's HEAD changes against REV the one run ran; "not measured", with why, when REV is
not in the repository (a shallow clone) or the measured files are changed in the work tree."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import commit, git, init_repo
from tests.integration.compare_helpers import BUGGY, FIXED, IMAGE, TESTS
from tests.integration.coverage_helpers import HELPER, JS_BUGGY, JS_FIXED, JS_PKG, JS_TEST
from tests.integration.helpers import Run, verify_pr

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NODE_IMAGE = "verify-pr-node:local"


@dataclass
class Repo:
    path: Path
    base: str
    head: str  # add() fixed, plus a helper no test calls


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    require_docker(IMAGE)
    path = init_repo(tmp_path_factory.mktemp("runcov") / "repo")
    base = commit(path, {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "test_calc.py": TESTS})
    head = commit(path, {"calc.py": FIXED + HELPER}, "fix add, add a helper")
    return Repo(path, base, head)


def _coverage(run: Run) -> dict:
    cov = run.verdict.get("patch_coverage")
    assert isinstance(cov, dict), (run.code, run.stderr)
    return cov


def test_pytest_run_lists_the_helper_as_run_by_nothing(repo: Repo, tmp_path: Path) -> None:
    run = verify_pr(repo.path, IMAGE, tmp_path / "out", "--diff-base", repo.base)
    assert (run.code, run.verdict["verdict"]) == (0, "PASS"), run.stderr
    cov = _coverage(run)
    assert cov["state"] == "measured" and cov["has_proof"] is False, cov
    (entry,) = cov["files"]
    # calc.py at HEAD: 2 `return a + b` (fixed); 9 def unused_helper, 10-11 its body
    assert entry["path"] == "calc.py" and entry["changed"] == [2, 9, 10, 11]
    assert entry["run"] == [2, 9] and entry["not_run"] == [10, 11] and entry["proof"] == []
    assert (cov["run_lines"], cov["changed_lines"], cov["proof_measured"]) == (2, 4, False)
    assert "changed lines run: 2 of 4 (no proof in mode run)" in run.stdout
    assert "by the proof" not in run.stdout  # no proof: no figure, said so, never a 0
    assert "- calc.py:10-11" in run.stdout


def test_without_diff_base_nothing_is_measured(repo: Repo, tmp_path: Path) -> None:
    # the twin: the same run without the flag
    run = verify_pr(repo.path, IMAGE, tmp_path / "out")
    assert (run.code, run.verdict["verdict"]) == (0, "PASS"), run.stderr
    assert run.verdict["patch_coverage"] is None
    assert "changed lines run" not in run.stdout


def test_the_figures_never_change_the_verdict(repo: Repo, tmp_path: Path) -> None:
    # a suite that runs none of the changed lines: PASS with and without the figures
    tests = "def test_nothing_of_calc():\n    assert True\n"
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", f"file://{repo.path}", str(clone))
    commit(clone, {"test_calc.py": tests}, "a suite that runs nothing of calc")
    plain = verify_pr(clone, IMAGE, tmp_path / "plain")
    measured = verify_pr(clone, IMAGE, tmp_path / "measured", "--diff-base", repo.base)
    cov = _coverage(measured)
    assert cov["state"] == "measured" and cov["run_lines"] == 0  # positive control: 0 of 4
    assert plain.verdict["patch_coverage"] is None
    for key in ("verdict", "reasons", "totals"):
        assert plain.verdict[key] == measured.verdict[key], key
    statuses = [[(c["id"], c["status"]) for c in r.verdict["testcases"]] for r in (plain, measured)]
    assert statuses[0] == statuses[1]  # the durations differ, nothing else
    assert plain.code == measured.code == 0


def test_a_base_the_shallow_clone_lacks_is_not_measured(repo: Repo, tmp_path: Path) -> None:
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "--quiet", "--depth", "1", f"file://{repo.path}", str(shallow))
    run = verify_pr(shallow, IMAGE, tmp_path / "out", "--diff-base", repo.base)
    assert (run.code, run.verdict["verdict"]) == (0, "PASS"), run.stderr  # the run still runs
    cov = _coverage(run)
    assert cov["state"] == "not_measured" and cov["files"] == []
    assert "is not in the repository" in cov["note"] and "shallow clone" in cov["note"]
    assert f"changed lines run: {cov['note']}" in run.stdout
    # the twin: the same clone, diffed against a commit it holds, is measured
    git(shallow, "fetch", "--quiet", "--depth", "2", "origin", repo.head)
    run = verify_pr(shallow, IMAGE, tmp_path / "out2", "--diff-base", repo.base)
    assert _coverage(run)["state"] == "measured"


def test_a_dirty_work_tree_is_not_measured(repo: Repo, tmp_path: Path) -> None:
    dirty = tmp_path / "dirty"
    git(tmp_path, "clone", "--quiet", f"file://{repo.path}", str(dirty))
    (dirty / "calc.py").write_text(FIXED + HELPER + "\nEXTRA = 1\n")
    run = verify_pr(dirty, IMAGE, tmp_path / "out", "--diff-base", repo.base)
    cov = _coverage(run)
    assert cov["state"] == "not_measured", cov
    assert "uncommitted changes to 1 changed code file" in cov["note"]
    # the twin: a change to a file that is not measured (a test) leaves the figures
    (dirty / "calc.py").write_text(FIXED + HELPER)
    (dirty / "test_calc.py").write_text(TESTS + "\n")
    run = verify_pr(dirty, IMAGE, tmp_path / "out2", "--diff-base", repo.base)
    assert _coverage(run)["state"] == "measured"


def test_jest_run_lists_the_helper_as_run_by_nothing(tmp_path: Path) -> None:
    require_docker(NODE_IMAGE)
    path = init_repo(tmp_path / "repo")
    base = commit(path, {"package.json": JS_PKG, "calc.js": JS_BUGGY, "calc.test.js": JS_TEST})
    commit(path, {"calc.js": JS_FIXED}, "fix add, add a helper")
    run = verify_pr(path, NODE_IMAGE, tmp_path / "out", "--diff-base", base)
    assert (run.code, run.verdict["verdict"]) == (0, "PASS"), run.stderr
    cov = _coverage(run)
    assert cov["state"] == "measured", cov
    (entry,) = cov["files"]
    # calc.js at HEAD: 2 the fixed return; 5 the helper's declaration, 6-7 its body; 10 exports
    assert entry["changed"] == [2, 5, 6, 7, 10]
    assert entry["run"] == [2, 10] and entry["not_run"] == [5, 6, 7]
    assert "changed lines run: 2 of 5 (no proof in mode run)" in run.stdout
