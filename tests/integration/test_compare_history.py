"""Real history: consecutive releases of PyPI packages that ship their tests, each pair made
into a two-commit git repo here, compared, and checked against pytest run directly in the
same image (head's test files over base's code, then head) — verdict and FAIL_TO_PASS ids.

The sdists are pinned by sha256 in tests/corpus/manifest.json ("history") and cached like the
run corpus (tests/integration/test_corpus.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, git, init_repo
from tests.integration.test_compare_negatives import compare
from tests.integration.test_corpus import MANIFEST, fetch, unpack
from verify_pr.models.compare import CompareResult
from verify_pr.models.report import TestCase
from verify_pr.verify.select import pytest_node_id

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IMAGE = "verify-pr-python:local"
_RESULT_LINE = re.compile(r"^(PASSED|FAILED|ERROR) (\S+)", re.MULTILINE)


def replace_tree(repo: Path, tree: Path) -> None:
    """The work tree becomes a copy of ``tree`` (.git kept)."""
    for child in repo.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    shutil.copytree(tree, repo, dirs_exist_ok=True)


def two_commits(tmp_path: Path, base: Path, head: Path) -> tuple[Path, str, str]:
    repo = init_repo(tmp_path / "repo")
    replace_tree(repo, base)
    base_sha = commit(repo, {}, "base release")
    replace_tree(repo, head)
    head_sha = commit(repo, {}, "head release")
    return repo, base_sha, head_sha


def direct_results(tree: Path) -> dict[str, str]:
    """pytest itself in the same image and lockdown: node id -> PASSED/FAILED/ERROR."""
    script = "cp -R /repo/. /work/ && cd /work && python3 -m pytest -p no:cacheprovider -q -rA"
    proc = subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "--network",
            "none",
            "--user",
            "65534:65534",
            "--read-only",
            "--tmpfs",
            "/work:exec,size=256m,uid=65534,gid=65534",
            "--tmpfs",
            "/tmp:size=64m",
            "-e",
            "HOME=/work",
            "-v",
            f"{tree}:/repo:ro",
            IMAGE,
            "sh",
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    found = dict((node, word) for word, node in _RESULT_LINE.findall(proc.stdout))
    assert found, proc.stdout[-2000:] + proc.stderr[-2000:]
    return found


def over_base(base: Path, head: Path, dest: Path) -> Path:
    """By hand, independently of verify-pr's rule: base's tree with head's tests/ folder."""
    shutil.copytree(base, dest)
    shutil.rmtree(dest / "tests")
    shutil.copytree(head / "tests", dest / "tests")
    return dest


def direct_fail_to_pass(base: Path, head: Path, scratch: Path) -> list[str]:
    before = direct_results(over_base(base, head, scratch / "before"))
    after = direct_results(head)
    return sorted(i for i, s in before.items() if s != "PASSED" and after.get(i) == "PASSED")


def _releases(entry: dict[str, Any], tmp_path: Path) -> tuple[Path, Path]:
    base = unpack(fetch(entry["base"]), tmp_path / "base-src")
    head = unpack(fetch(entry["head"]), tmp_path / "head-src")
    return base, head


@pytest.mark.parametrize("entry", MANIFEST["history"], ids=lambda e: e["id"])
def test_release_pair_matches_pytest_run_directly(entry: dict[str, Any], tmp_path: Path) -> None:
    require_docker(IMAGE)
    base, head = _releases(entry, tmp_path)
    assert direct_fail_to_pass(base, head, tmp_path) == entry["fail_to_pass"]
    repo, base_sha, head_sha = two_commits(tmp_path, base, head)
    extra = ["--runner", "pytest", "--flake-runs", "1", "--timeout", "300"]
    if entry["strict_harness"]:
        extra.append("--strict-harness")
    _code, result, _ = compare(tmp_path / "cmp", repo, base_sha, head_sha, IMAGE, *extra)
    assert result.verdict == entry["verdict"], result.reasons
    proved = sorted(
        node for p in result.proofs if (node := pytest_node_id(_head_case(result, p.id)))
    )
    assert proved == entry["fail_to_pass"]


def _head_case(result: CompareResult, test_id: str) -> TestCase:
    return next(c for c in result.head.testcases if c.id == test_id)


def test_real_fix_whose_base_moved_on_is_verified(tmp_path: Path) -> None:
    require_docker(IMAGE)
    (entry,) = [e for e in MANIFEST["history"] if e["id"] == "parse-1.20.2"]
    base, head = _releases(entry, tmp_path)
    repo, fork, pr = two_commits(tmp_path, base, head)
    # the base branch moves on after the PR branched: a new test and a new module
    checkout(repo, fork)
    tip = commit(
        repo,
        {
            "parse_extra.py": "import parse\n\n\ndef year(text):\n"
            '    return parse.parse("{:d}", text)[0]\n',
            "tests/test_moved_on.py": "from parse_extra import year\n\n\n"
            'def test_year():\n    assert year("2024") == 2024\n',
        },
        "base moves on",
    )
    git(repo, "checkout", "--quiet", "-b", "tip")
    code, result, summary = compare(
        tmp_path / "cmp", repo, tip, pr, IMAGE, "--runner", "pytest", "--flake-runs", "1"
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert result.method == "merge-tree" and result.merge_base == fork
    assert "tests/test_moved_on.py" not in result.test_paths  # not the PR's change
    assert (
        sorted(pytest_node_id(_head_case(result, p.id)) or "" for p in result.proofs)
        == (entry["fail_to_pass"])
    )
    moved = [t for t in result.transitions if t.id.endswith("::test_year")]
    assert [t.transition for t in moved] == ["PASS_TO_PASS"]
    assert "merged into base" in summary
