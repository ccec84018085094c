"""Patch coverage end to end (pytest): which changed lines head's run and the proof ran."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.compare_helpers import BUGGY, FIXED, IMAGE, TESTS, compare
from tests.integration.coverage_helpers import HELPER, JS_BUGGY, JS_FIXED, JS_PKG, JS_TEST
from tests.integration.helpers import MANIFEST, fetch, unpack
from tests.integration.helpers import compare as compare_at
from verify_pr.render.coverage import not_run_spans

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NODE_IMAGE = "verify-pr-node:local"
CONST_TESTS = "from calc import LIMIT\n\n\ndef test_limit():\n    assert LIMIT == 10\n"


@dataclass
class Repo:
    path: Path
    base: str
    fix_with_helper: str  # add() fixed, plus a helper no test calls
    const_base: str
    const_fix: str  # only a module constant fixed (the proof is an import), plus a helper


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    require_docker(IMAGE)
    path = init_repo(tmp_path_factory.mktemp("cov") / "repo")
    base = commit(path, {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "test_calc.py": TESTS})
    fix = commit(path, {"calc.py": FIXED + HELPER}, "fix add, add a helper")
    checkout(path, base)
    const_base = commit(
        path, {"calc.py": BUGGY + "\nLIMIT = 9\n", "test_limit.py": CONST_TESTS}, "limit"
    )
    const_fix = commit(path, {"calc.py": BUGGY + "\nLIMIT = 10\n" + HELPER}, "fix the limit")
    return Repo(path, base, fix, const_base, const_fix)


def test_fixed_line_is_run_by_the_proof_and_the_helper_by_nothing(
    repo: Repo, tmp_path: Path
) -> None:
    code, result, summary = compare(
        tmp_path, repo.path, "--base", repo.base, "--head", repo.fix_with_helper
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    cov = result.patch_coverage
    assert cov is not None and cov.state == "measured", cov
    (entry,) = cov.files
    # calc.py after: 2 `return a + b` (fixed); 9 def unused_helper, 10-11 its body
    assert entry.path == "calc.py" and entry.changed == (2, 9, 10, 11)
    assert entry.proof == (2, 9)  # the fixed line, and the def line any import runs
    assert entry.not_run == (10, 11)
    assert (cov.run_lines, cov.changed_lines, cov.proof_lines) == (2, 4, 2)
    assert not_run_spans(cov) == ["calc.py:10-11"]
    assert "changed lines run: 2 of 4 (by the proof: 2)" in summary
    assert "`calc.py:10-11`" in summary
    assert "inside functions" not in summary  # the proof ran the fixed function's line


def test_a_proof_that_only_imports_the_changed_module_is_said_as_such(
    repo: Repo, tmp_path: Path
) -> None:
    code, result, summary = compare(
        tmp_path, repo.path, "--base", repo.const_base, "--head", repo.const_fix
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    cov = result.patch_coverage
    assert cov is not None and cov.proof_measured
    assert cov.changed_in_functions == 2 and cov.proof_in_functions == 0
    assert "The proof ran none of the changed lines inside functions" in summary
    assert "`calc.py:12-13`" in summary  # the helper's body


def test_jest_fixed_line_is_run_by_the_proof_and_the_helper_by_nothing(tmp_path: Path) -> None:
    require_docker(NODE_IMAGE)
    path = init_repo(tmp_path / "repo")
    base = commit(path, {"package.json": JS_PKG, "calc.js": JS_BUGGY, "calc.test.js": JS_TEST})
    head = commit(path, {"calc.js": JS_FIXED}, "fix add, add a helper")
    code, result, summary = compare_at(tmp_path, path, base, head, NODE_IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    cov = result.patch_coverage
    assert cov is not None and cov.state == "measured", cov
    (entry,) = cov.files
    # calc.js after: 2 the fixed return; 5 the helper's declaration, 6-7 its body; 10 exports
    assert entry.changed == (2, 5, 6, 7, 10)
    assert entry.proof == (2, 10) and entry.not_run == (5, 6, 7)
    assert not_run_spans(cov) == ["calc.js:5-7"]
    assert "changed lines run: 2 of 5 (by the proof: 2)" in summary
    assert "inside functions" not in summary


def test_a_real_release_pair_shows_its_figures(tmp_path: Path) -> None:
    """parse 1.20.1 -> 1.20.2 (tests/corpus/manifest.json): the fix of hyphens in field names,
    proven by two new tests; its changed lines in parse.py, and who ran them."""
    require_docker(IMAGE)
    (entry,) = [e for e in MANIFEST["history"] if e["id"] == "parse-1.20.2"]
    repo = init_repo(tmp_path / "repo")
    shas = []
    for side in ("base", "head"):
        tree = unpack(fetch(entry[side]), tmp_path / f"{side}-src")
        for child in repo.iterdir():
            if child.name != ".git":
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        shutil.copytree(tree, repo, dirs_exist_ok=True)
        shas.append(commit(repo, {}, f"{side} release"))
    code, result, summary = compare_at(tmp_path, repo, shas[0], shas[1], IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    cov = result.patch_coverage
    assert cov is not None and cov.state == "measured", cov
    assert [f.path for f in cov.files] == ["parse.py"]
    assert cov.changed_lines > 0 and cov.proof_measured
    assert 0 < cov.proof_lines <= cov.run_lines <= cov.changed_lines
    assert f"changed lines run: {cov.run_lines} of {cov.changed_lines}" in summary
    print(summary)  # the figures, for the README (pytest -s)
