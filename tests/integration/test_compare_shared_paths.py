"""Files the PR's version runs on both sides, in real containers: a data file, and a package
named in testpaths.

A changed file that is neither test nor code (data, configuration, docs) is the PR's version
on base's side too, so a test it breaks fails on both sides and looked like a failure base
already had: VERIFIED said "none regressed" over a PR that broke a test through its data.
Base's own run (base's code, tests and data) now runs whole whenever such a file changes and
shows the test passed before the PR. The attacks: a data file that breaks a test, and one
that drops a failing parametrized case; the honest twin: the same fix with a data change that
breaks nothing. The publish side, re-deriving from each real result file, agrees.

``testpaths = toolz`` in the project named toolz puts tests inside the package: its modules
are code (a real fix there is VERIFIED), while a testpaths folder that is not the project's
package stays tests, so a PR that only edits a test helper there proves nothing. The name may
come from base's setup.py alone (WebOb's ``testpaths = src/webob tests``), as a string literal
read from base: a name setup.py computes, or one the PR writes there, leaves the folder tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareResult
from verify_pr.publish.consistency import compare_problems

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IMAGE = "verify-pr-python:local"
CALC = "def add(a, b):\n    return a - b\n\n\ndef greet():\n    return 'hello'\n"
CALC_FIXED = CALC.replace("a - b", "a + b")
TEST_ADD = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
TEST_GREET = (
    "from pathlib import Path\n\nfrom calc import greet\n\n"
    'DATA = Path(__file__).parents[1] / "data"\n\n\n'
    "def test_greet_matches_data():\n"
    '    assert greet() == (DATA / "greeting.txt").read_text().strip()\n'
)
TEST_CASES = (
    "from pathlib import Path\n\nimport pytest\n\nfrom calc import greet\n\n"
    'LINES = (Path(__file__).parents[1] / "data" / "cases.txt").read_text().split()\n\n\n'
    '@pytest.mark.parametrize("word", LINES)\n'
    "def test_case(word):\n    assert word in greet()\n"
)


def _compare(tmp_path: Path, repo: Path, base: str, head: str) -> CompareResult:
    _code, result, _summary = compare(tmp_path, repo, base, head, IMAGE, "--flake-runs", "1")
    # the publish side re-derives the claim from the real file and finds nothing to refuse
    assert compare_problems(result, head) == [], result.reasons
    return result


@pytest.fixture(scope="module")
def data_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    require_docker(IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("shared") / "repo")
    base = commit(
        repo,
        {
            "calc.py": CALC,
            "data/greeting.txt": "hello\n",
            "data/cases.txt": "he ll lo\n",
            "tests/test_greet.py": TEST_GREET,
            "tests/test_cases.py": TEST_CASES,
        },
        "base: add is wrong, greet passes",
    )
    return repo, base


def _head(repo: Path, base: str, files: dict[str, str | bytes | None]) -> str:
    checkout(repo, base)
    return commit(repo, {"calc.py": CALC_FIXED, "tests/test_add.py": TEST_ADD, **files}, "fix")


def test_a_data_file_that_breaks_a_test_is_a_regression(
    tmp_path: Path, data_repo: tuple[Path, str]
) -> None:
    repo, base = data_repo
    head = _head(repo, base, {"data/greeting.txt": "goodbye\n"})
    result = _compare(tmp_path, repo, base, head)
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert any("pass on base and fail on head" in r and "test_greet" in r for r in result.reasons)
    assert result.other_paths == ("data/greeting.txt",) and result.base_own is not None


def test_a_data_file_that_drops_a_case_is_a_removed_test(
    tmp_path: Path, data_repo: tuple[Path, str]
) -> None:
    repo, base = data_repo
    head = _head(repo, base, {"data/cases.txt": "he lo\n"})
    result = _compare(tmp_path, repo, base, head)
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert any("gone on head" in r and "test_case[ll]" in r for r in result.reasons)


def test_honest_twin_a_data_change_that_breaks_nothing_is_verified(
    tmp_path: Path, data_repo: tuple[Path, str]
) -> None:
    repo, base = data_repo
    head = _head(repo, base, {"data/cases.txt": "he ll lo  \n"})
    result = _compare(tmp_path, repo, base, head)
    assert result.verdict == "VERIFIED", result.reasons
    assert result.base_own is not None and result.other_paths == ("data/cases.txt",)
    assert [p.id.rsplit("::", 1)[-1] for p in result.proofs] == ["test_add"]


def _package_repo(tmp_path: Path, project: str, helper_path: str) -> tuple[Path, str]:
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "pyproject.toml": f'[project]\nname = "{project}"\n\n'
            '[tool.pytest.ini_options]\ntestpaths = ["toolz"]\n',
            "toolz/__init__.py": "",
            "toolz/core.py": CALC,
            helper_path: "EXPECTED = 0\n",
            "toolz/tests/__init__.py": "",
            "toolz/tests/test_core.py": "from toolz.core import greet\n\n\n"
            "def test_greet():\n    assert greet() == 'hello'\n",
        },
        "base",
    )
    return repo, base


def test_testpaths_naming_the_projects_package_lets_its_code_prove_a_fix(
    tmp_path: Path,
) -> None:
    require_docker(IMAGE)
    repo, base = _package_repo(tmp_path, "toolz", "toolz/helpers.py")
    test = "from toolz.core import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
    head = commit(
        repo,
        {"toolz/core.py": CALC_FIXED, "toolz/tests/test_add.py": test},
        "fix add, with a test",
    )
    result = _compare(tmp_path, repo, base, head)
    assert result.verdict == "VERIFIED", result.reasons
    assert result.code_paths == ("toolz/core.py",)


def test_a_helper_in_a_testpaths_folder_that_is_not_the_package_proves_nothing(
    tmp_path: Path,
) -> None:
    """The attack twin: the project is calc, so toolz/ is a folder of tests; the PR turns a
    failing test green by editing the helper it reads (what add should return), not code.
    Were the helper code, base's version (4) would fail before and the PR's (0) pass after."""
    require_docker(IMAGE)
    repo, base = _package_repo(tmp_path, "calc", "toolz/expect.py")
    test = (
        "from toolz.core import add\nfrom toolz.expect import EXPECTED\n\n\n"
        "def test_add():\n    assert add(2, 2) == EXPECTED\n"
    )
    checkout(repo, base)
    base = commit(
        repo, {"toolz/expect.py": "EXPECTED = 4\n", "toolz/tests/test_add.py": test}, "a test"
    )
    head = commit(repo, {"toolz/expect.py": "EXPECTED = 0\n"}, "the helper bent to the bug")
    result = _compare(tmp_path, repo, base, head)
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert "toolz/expect.py" in result.test_paths and result.code_paths == ()


SETUP_PY = 'from setuptools import setup\n\nsetup(name="{name}", package_dir={{"": "src"}})\n'
SETUP_PY_COMPUTED = (
    'from setuptools import setup\n\nNAME = "toolz"\n\nsetup(name=NAME, package_dir={"": "src"})\n'
)


def _setup_py_repo(tmp_path: Path, setup_py: str) -> tuple[Path, str]:
    """WebOb's shape: the name only in setup.py, ``testpaths = src/toolz tests``; a test of
    add reads what add should return from a helper module inside the package."""
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "setup.py": setup_py,
            "setup.cfg": "[tool:pytest]\ntestpaths =\n    src/toolz\n    tests\n",
            "src/toolz/__init__.py": "",
            "src/toolz/core.py": CALC,
            "src/toolz/expect.py": "EXPECTED = 4\n",
            "tests/test_core.py": "from toolz.core import greet\n\n\n"
            "def test_greet():\n    assert greet() == 'hello'\n",
            "tests/test_add.py": "from toolz.core import add\nfrom toolz.expect import EXPECTED"
            "\n\n\ndef test_add():\n    assert add(2, 2) == EXPECTED\n",
        },
        "base: add is wrong",
    )
    return repo, base


def test_a_package_named_only_by_setup_py_lets_its_code_prove_a_fix(tmp_path: Path) -> None:
    require_docker(IMAGE)
    repo, base = _setup_py_repo(tmp_path, SETUP_PY.format(name="toolz"))
    head = commit(repo, {"src/toolz/core.py": CALC_FIXED}, "fix add")
    result = _compare(tmp_path, repo, base, head)
    assert result.verdict == "VERIFIED", result.reasons
    assert result.code_paths == ("src/toolz/core.py",)
    assert [p.id.rsplit("::", 1)[-1] for p in result.proofs] == ["test_add"]


def test_a_name_the_pr_writes_into_setup_py_leaves_the_package_tests(tmp_path: Path) -> None:
    """The attack twin: base's setup.py computes its name (no literal), so src/toolz/ is a
    folder of tests; the PR writes the literal name into setup.py and bends the helper to
    the bug. Were the rule read from the PR's setup.py, or the helper code, base's helper (4)
    would fail before and the PR's (0) pass after: VERIFIED over a PR that fixes nothing."""
    require_docker(IMAGE)
    repo, base = _setup_py_repo(tmp_path, SETUP_PY_COMPUTED)
    head = commit(
        repo,
        {"setup.py": SETUP_PY.format(name="toolz"), "src/toolz/expect.py": "EXPECTED = 0\n"},
        "name the package, bend the helper",
    )
    result = _compare(tmp_path, repo, base, head)
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert "src/toolz/expect.py" in result.test_paths
    assert "src/toolz/expect.py" not in result.code_paths and result.proofs == ()
