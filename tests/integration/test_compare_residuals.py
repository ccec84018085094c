"""Two older residuals of issue 33, on real containers, each with its honest twin.

- A package the PR turns into a namespace package (it deletes ``attrs/__init__.py``, whose
  folder holds only a subpackage): on head ``import attrs`` finds the image's installed attrs
  (a regular package wins over a namespace portion anywhere on the path), whose ``has`` is
  right, and the import probe never asked about the folder (no module directly in it). The probe
  now asks about a folder with Python anywhere below it.
- A test module that is a symlink to a file the rule calls code: the PR weakens the target,
  which ran as base's on "before" (code) and as the PR's on head. A test placed through the
  link now proves nothing, as a test in a file that is code and test at once does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.compare_helpers import BUGGY, FIXED, IMAGE
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareVerdict

pytestmark = [pytest.mark.docker, pytest.mark.slow]

HAS_TEST = "import attrs\n\n\ndef test_has():\n    assert attrs.has(int) is False\n"
HAS_BUGGY = "def has(cls):\n    return True\n"
HAS_FIXED = "def has(cls):\n    return hasattr(cls, '__attrs_attrs__')\n"


@pytest.mark.parametrize("head", ["fix", "trick"])
def test_a_package_turned_namespace_imports_the_image_s_copy(tmp_path: Path, head: str) -> None:
    require_docker(IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "pytest.ini": "[pytest]\n",
            "attrs/__init__.py": "from attrs.impl.core import has\n",
            "attrs/impl/__init__.py": "",
            "attrs/impl/core.py": HAS_BUGGY,
            "tests/test_has.py": HAS_TEST,
        },
        "base",
    )
    checkout(repo, base)
    if head == "fix":
        sha = commit(repo, {"attrs/impl/core.py": HAS_FIXED}, "fix")
    else:
        (repo / "attrs" / "__init__.py").unlink()
        sha = commit(repo, {}, "drop the package's __init__.py")
    code, result, _ = compare(tmp_path, repo, base, sha, IMAGE, "--flake-runs", "1")
    if head == "fix":
        assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
        return
    assert result.counts.fail_to_pass == 1  # the image's attrs answered on head
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert any("outside the tree" in r and "attrs" in r for r in result.reasons), result.reasons


CHECKS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == {want}\n"


@pytest.mark.parametrize("head", ["fix", "trick"])
def test_a_test_module_linked_to_code_proves_nothing(tmp_path: Path, head: str) -> None:
    require_docker(IMAGE)
    repo = init_repo(tmp_path / "repo")
    (repo / "test_calc.py").symlink_to("checks.py")
    base = commit(
        repo,
        {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "checks.py": CHECKS.format(want=5)},
        "base",
    )
    checkout(repo, base)
    if head == "fix":
        sha = commit(repo, {"calc.py": FIXED}, "fix")
    else:  # the test, reached through the link, weakened to the bug
        sha = commit(repo, {"checks.py": CHECKS.format(want=-1)}, "weaken")
    code, result, _ = compare(tmp_path, repo, base, sha, IMAGE, "--flake-runs", "1")
    if head == "fix":
        assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
        return
    assert result.counts.fail_to_pass == 1
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert any("code the PR changes, and a test" in r for r in result.reasons), result.reasons
