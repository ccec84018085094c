"""src layouts run the tree's code, and the import probe catches a copy from outside /work:
real pytest runs in the python image, which holds ``more_itertools`` and pytest's own
dependency ``iniconfig`` (the unbroken packages). A tree that carries a broken copy of either
is never PASS."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.helpers import verify_pr
from tests.sandbox_helpers import make_repo

PYTHON_IMAGE = "verify-pr-python:local"
DECLARED = '[project]\nname = "demo"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n'
# Each passes against the installed package and fails against the tree's broken copy.
USES = {
    "more_itertools": "import more_itertools\n\n\ndef test_real():\n"
    "    assert list(more_itertools.chunked([1, 2, 3], 2)) == [[1, 2], [3]]\n",
    "iniconfig": "import iniconfig\n\n\ndef test_real():\n"
    "    assert hasattr(iniconfig, 'IniConfig')\n",
}
BROKEN = "BROKEN = True  # the PR broke it: its functions are gone\n"


def run(tmp_path: Path, files: dict[str, str]) -> tuple[int, dict[str, Any]]:
    repo = make_repo(tmp_path, {"pytest.ini": "[pytest]\n", **files})
    result = verify_pr(repo, PYTHON_IMAGE, tmp_path / "out", "--timeout", "120")
    return result.code, result.verdict


def test_declared_src_layout_imports_the_trees_package(tmp_path: Path) -> None:
    files = {
        "pyproject.toml": DECLARED,
        "src/vpr_demo_pkg/__init__.py": "VALUE = 41 + 1\n",
        "tests/test_demo.py": "from vpr_demo_pkg import VALUE\n\n\ndef test_v():\n    assert VALUE == 42\n",
    }
    code, verdict = run(tmp_path, files)
    assert (code, verdict["verdict"]) == (0, "PASS"), verdict["reasons"]
    assert "PYTHONPATH=/work/src" in str(verdict["command"])


@pytest.mark.parametrize(
    ("package", "verdict", "why"),
    [
        # the tests run against the tree's broken copy, and fail
        ("more_itertools", "FAIL", "failed"),
        # pytest itself imports iniconfig: the broken copy stops the runner before a report
        ("iniconfig", "NOT_PROVEN", "has no attribute 'IniConfig'"),
    ],
)
def test_broken_src_tree_with_the_good_package_installed_is_never_pass(
    tmp_path: Path, package: str, verdict: str, why: str
) -> None:
    files = {
        "pyproject.toml": DECLARED,
        f"src/{package}/__init__.py": BROKEN,
        "tests/test_pkg.py": USES[package],
    }
    code, result = run(tmp_path, files)
    reasons = result["reasons"]
    assert result["verdict"] == verdict and code == {"FAIL": 1, "NOT_PROVEN": 4}[verdict], reasons
    assert any(why in r for r in reasons), reasons


def test_an_undeclared_src_package_imported_from_the_image_is_not_proven(
    tmp_path: Path,
) -> None:
    # No layout declared: the tests import the image's iniconfig and would pass. The probe
    # finds the tree's package resolving outside /work: NOT PROVEN, with the path.
    files = {"src/more_itertools/__init__.py": BROKEN, "tests/test_pkg.py": USES["more_itertools"]}
    code, verdict = run(tmp_path, files)
    reasons = verdict["reasons"]
    assert (code, verdict["verdict"]) == (4, "NOT_PROVEN"), reasons
    assert any("'more_itertools' from /" in r and "outside the tree" in r for r in reasons), reasons
    # The suite itself passed: without the probe this would have been a PASS.
    assert verdict["totals"] == {
        "total": 1,
        "passed": 1,
        "failed": 0,
        "error": 0,
        "skipped": 0,
        "expected_failure": 0,
    }
