"""compare with issue 23's missing-module rule (a run whose only failures are test files that
cannot import a module the tree lacks is NOT PROVEN): the before run (base's code, head's tests)
legitimately misses the PR's new module, and that stays a failure on base (the proof), embedded
as FAIL; a dependency neither side's image holds leaves the comparison NOT PROVEN, naming it.
Both are re-derived by the publish side without a contradiction. Real containers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.verdict import Verdict
from verify_pr.publish.consistency import compare_problems

IMAGE = "verify-pr-python:local"
CALC = "def add(a, b):\n    return a + b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
NEW_MODULE = "def shout(text):\n    return text.upper()\n"
TEST_NEW = "from shouting import shout\n\n\ndef test_shout():\n    assert shout('a') == 'A'\n"
TEST_ABSENT = "import vpr_absent_dependency  # noqa: F401\n\n\ndef test_x():\n    assert True\n"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, str]:
    require_docker(IMAGE)
    path = init_repo(tmp_path_factory.mktemp("missing-compare") / "repo")
    base = commit(
        path, {"pytest.ini": "[pytest]\n", "calc.py": CALC, "tests/test_calc.py": TEST_CALC}
    )
    new = commit(
        path,
        # base's own tests pass: the before run's only failure is the file that cannot load
        {"shouting.py": NEW_MODULE, "tests/test_shouting.py": TEST_NEW},
        "a new module and its test",
    )
    checkout(path, base)
    absent = commit(
        path,
        {"tests/test_dep.py": TEST_ABSENT},
        "a test of a dependency the image lacks",
    )
    return path, base, new, absent


@pytest.mark.slow
def test_a_new_module_missing_on_base_is_the_proof(
    repo: tuple[Path, str, str, str], tmp_path: Path
) -> None:
    path, base, new, _ = repo
    code, result, _ = compare(tmp_path, path, base, new, IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert {p.id.split("::")[-1] for p in result.proofs} == {"test_shout"}
    # the before run could not import the PR's module: a failure on base, not the image's gap
    assert result.before.verdict is Verdict.FAIL, result.before.reasons
    assert "could not import 'shouting'" in result.before.reasons[0]
    assert compare_problems(result, new) == []


@pytest.mark.slow
def test_a_dependency_neither_side_holds_is_not_proven_and_named(
    repo: tuple[Path, str, str, str], tmp_path: Path
) -> None:
    path, base, _, absent = repo
    code, result, _ = compare(tmp_path, path, base, absent, IMAGE)
    assert (code, result.verdict) == (4, "NOT_PROVEN"), result.reasons
    assert result.head.verdict is Verdict.NOT_PROVEN
    assert result.head.reasons[0].startswith(
        "the image lacks the module(s) 'vpr_absent_dependency'"
    )
    assert compare_problems(result, absent) == []
