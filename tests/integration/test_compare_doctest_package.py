"""A package that is both code and doctests (``--doctest-modules``, ``testpaths`` naming the
package, setup.py naming the distribution through ``pkg.__title__``: sortedcontainers 2.2's
shape), in real containers on the real daemon.

The package's modules are code (base's version in "before"), so the tests in tests/ prove a
fix made there; the module's own doctests, changed with the code, never do. Before this rule
the whole package was a folder of tests, the PR's version on both sides: no fix in it could
ever be proven (sortedcontainers 7dc426c and 2b03703, docs/compare.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PYTHON_IMAGE = "verify-pr-python:local"

DOC = '    """The last item.\n\n    >>> last([1, 2])\n    2\n{extra}    """\n'
BUGGY = "def last(items):\n" + DOC + "    return items[-1] if len(items) > 1 else None\n"
FIXED = "def last(items):\n" + DOC + "    return items[-1]\n"
ONE = "    >>> last([5])\n    5\n"
TEST = "from mylist.core import last\n\n\ndef test_last():\n    assert last([1, 2]) == 2\n"
TEST_ONE = TEST + "\n\ndef test_last_of_one():\n    assert last([5]) == 5\n"


@pytest.fixture(scope="module")
def repo_heads(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, str]]:
    require_docker(PYTHON_IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("doctest-package") / "repo")
    base = commit(
        repo,
        {
            "tox.ini": "[pytest]\naddopts = --doctest-modules\ntestpaths = mylist tests\n",
            "setup.py": "from setuptools import setup\n\nimport mylist\n\n"
            "setup(name=mylist.__title__, packages=['mylist'])\n",
            "mylist/__init__.py": "__title__ = 'mylist'\n",
            "mylist/core.py": BUGGY.format(extra=""),
            "tests/test_core.py": TEST,
        },
        "base: last() of one item is None",
    )
    variants: dict[str, dict[str, str | bytes | None]] = {
        # the fix, its docstring example, and a test in tests/ that shows it
        "fix": {"mylist/core.py": FIXED.format(extra=ONE), "tests/test_core.py": TEST_ONE},
        # the code and its own doctest changed together, nothing else: no proof
        "docstring": {"mylist/core.py": FIXED.format(extra=ONE)},
    }
    heads = {}
    for name, files in variants.items():
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return repo, base, heads


def _run(
    tmp_path: Path, repo: Path, base: str, head: str
) -> tuple[str, tuple[str, ...], list[str]]:
    _code, result, _ = compare(tmp_path, repo, base, head, PYTHON_IMAGE, "--flake-runs", "1")
    assert result.code_paths == ("mylist/core.py",), result.test_rule
    return result.verdict, result.reasons, [p.id.split("::")[-1] for p in result.proofs]


def test_a_fix_in_a_module_with_doctests_is_proven_by_the_tests_elsewhere(
    repo_heads: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = repo_heads
    verdict, reasons, proofs = _run(tmp_path, repo, base, heads["fix"])
    assert verdict == "VERIFIED", reasons
    assert proofs == ["test_last_of_one"]


def test_a_doctest_changed_with_the_code_proves_nothing(
    repo_heads: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = repo_heads
    verdict, reasons, proofs = _run(tmp_path, repo, base, heads["docstring"])
    assert verdict == "NOT_PROVEN", reasons
    assert proofs == []
    assert any("does not show what the PR fixes" in r for r in reasons), reasons
