"""Reasons a maintainer can act on, from real pytest runs in the python image: a conftest.py
that fails to load names its first error line; a missing dependency names the module and
says the image must hold it."""

from __future__ import annotations

from pathlib import Path

from tests.integration.helpers import verify_pr

PYTHON_IMAGE = "verify-pr-python:local"


def repo_with(root: Path, conftest: str) -> Path:
    root.mkdir()
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "conftest.py").write_text(conftest)
    (root / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    return root


def test_a_conftest_that_fails_to_load_names_its_first_error(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo", 'raise RuntimeError("boom while loading conftest")\n')
    run = verify_pr(repo, PYTHON_IMAGE, tmp_path / "out", "--timeout", "120")
    reasons = run.verdict["reasons"]
    assert (run.code, run.verdict["verdict"]) == (4, "NOT_PROVEN"), reasons
    assert "the runner wrote no report at the random path" in reasons
    assert "the runner's first error: RuntimeError: boom while loading conftest" in reasons


def test_a_missing_dependency_names_the_module(tmp_path: Path) -> None:
    repo = repo_with(tmp_path / "repo", "import vpr_absent_dependency\n")
    run = verify_pr(repo, PYTHON_IMAGE, tmp_path / "out", "--timeout", "120")
    reasons = run.verdict["reasons"]
    assert (run.code, run.verdict["verdict"]) == (4, "NOT_PROVEN"), reasons
    wanted = "the module 'vpr_absent_dependency' could not be imported: the image must hold it"
    assert wanted in reasons


def test_control_the_same_repo_loads_and_passes(tmp_path: Path) -> None:
    # Positive control: with a conftest that loads, the same tree is PASS (the reasons above
    # come from the load failure, not from the tree's shape).
    repo = repo_with(tmp_path / "repo", "import os\n")
    run = verify_pr(repo, PYTHON_IMAGE, tmp_path / "out", "--timeout", "120")
    assert (run.code, run.verdict["verdict"]) == (0, "PASS"), run.verdict["reasons"]
