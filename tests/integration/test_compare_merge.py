"""Compare what the PR changes, not what the base branch did since the PR branched: head is
merged into the base tip with hardened ``git merge-tree``; real containers on both sides."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, git, init_repo
from tests.integration.helpers import compare

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IMAGE = "verify-pr-python:local"
BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TESTS = (
    "from calc import add, mul\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)


@dataclass
class History:
    repo: Path
    fork_point: str
    pr: str  # fixes add(), branched at fork_point
    moved_on: str  # base tip: a new test, a harness file and a code change since fork_point
    conflicting: str  # base tip that rewrote the same line of add()
    merged: str  # base tip that already holds the PR


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> History:
    require_docker(IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("merge") / "repo")
    fork_point = commit(
        repo, {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "tests/test_calc.py": TESTS}
    )
    pr = commit(repo, {"calc.py": BUGGY.replace("a - b", "a + b")}, "fix add")
    checkout(repo, fork_point)
    moved_on = commit(
        repo,
        {
            "pytest.ini": "[pytest]\nconsole_output_style = classic\n",
            "shapes.py": "def square(x):\n    return x * x\n",
            "tests/test_shapes.py": "from shapes import square\n\n\n"
            "def test_square():\n    assert square(3) == 9\n",
        },
        "base moves on",
    )
    checkout(repo, fork_point)
    conflicting = commit(repo, {"calc.py": BUGGY.replace("a - b", "b - a")}, "base edits add")
    checkout(repo, moved_on)
    git(repo, "merge", "--quiet", "--no-edit", "--no-ff", pr)
    merged = git(repo, "rev-parse", "HEAD").strip()
    return History(repo, fork_point, pr, moved_on, conflicting, merged)


def test_pr_behind_a_base_that_moved_on_is_verified(history: History, tmp_path: Path) -> None:
    code, result, summary = compare(
        tmp_path, history.repo, history.moved_on, history.pr, IMAGE, "--flake-runs", "1"
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert result.method == "merge-tree"
    assert result.merge_base == history.fork_point and result.merge_tree
    # the PR's own change only: base's new test, harness file and code are not the PR's
    assert result.code_paths == ("calc.py",) and result.test_paths == ()
    assert result.harness_files_changed == ()
    by_id = {t.id.split("::")[-1]: t.transition.value for t in result.transitions}
    assert by_id == {
        "test_add": "FAIL_TO_PASS",
        "test_mul": "PASS_TO_PASS",
        "test_square": "PASS_TO_PASS",
    }
    assert "merged into base" in summary and history.fork_point[:12] in summary


def test_pr_ahead_of_base_runs_heads_own_tree(history: History, tmp_path: Path) -> None:
    code, result, _ = compare(
        tmp_path, history.repo, history.fork_point, history.pr, IMAGE, "--flake-runs", "1"
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert result.method == "head" and result.merge_tree is None
    assert result.merge_base == history.fork_point


def test_conflicting_pr_is_not_proven_naming_the_paths(history: History, tmp_path: Path) -> None:
    code, result, summary = compare(tmp_path, history.repo, history.conflicting, history.pr, IMAGE)
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    assert result.conflicts == ("calc.py",)
    assert any("calc.py" in r and "rebase" in r for r in result.reasons)
    assert result.transitions == () and result.before.sandbox.status == "ERROR"
    assert "calc.py" in summary


def test_already_merged_pr_is_not_proven(history: History, tmp_path: Path) -> None:
    code, result, _ = compare(tmp_path, history.repo, history.merged, history.pr, IMAGE)
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    assert any("already part of base" in r for r in result.reasons)
