"""NOTHING TO PROVE in real containers (issue 23.4): a PR that fixes nothing and breaks nothing
gets a verdict of its own, exit 0; a PR that breaks code and hides it from a suite that then
passes on both sides never does.

The honest twins: a docs change, a pure refactor, a refactor with a new test file. The attacks,
each breaking code the suite tests: the test weakened, the test deleted, a conftest that forces
passes, a tolerance the test reads (a data file, neither test nor code) widened, and a doctest
in a Markdown file rewritten to the bug's answer. The publish side, re-deriving the verdict
from each real result file, agrees every time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.compare_helpers import FORCE_PASS_CONFTEST
from tests.integration.helpers import compare
from verify_pr.exit_codes import CompareExit
from verify_pr.models.compare import CompareResult
from verify_pr.publish.consistency import compare_problems

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IMAGE = "verify-pr-python:local"
CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
CALC_REFACTORED = (
    "def add(a, b):\n    return sum((a, b))\n\n\n"
    "def mul(a, b):\n    total = 0\n    for _ in range(b):\n        total += a\n    return total\n"
)
CALC_BROKEN = CALC.replace("return a + b", "return a - b")
TEST_CALC = (
    "from calc import add, mul\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)
HALF = "def half(x):\n    return x / 2\n"
TEST_HALF = (
    "import json\nfrom pathlib import Path\n\nfrom half import half\n\n"
    'TOL = json.loads((Path(__file__).parents[1] / "config" / "tolerance.json").read_text())\n\n\n'
    'def test_half():\n    assert abs(half(3) - 1.5) <= TOL["tol"]\n'
)
Repo = tuple[Path, str, dict[str, str]]


def _heads(repo: Path, base: str, variants: dict[str, dict[str, str | bytes | None]]) -> dict:
    heads = {}
    for name, files in variants.items():
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return heads


def _compare(tmp_path: Path, repo: Path, base: str, head: str) -> tuple[int, CompareResult, str]:
    code, result, summary = compare(tmp_path, repo, base, head, IMAGE, "--flake-runs", "0")
    # the publish side re-derives the claim from the real file and finds nothing to refuse
    assert compare_problems(result, head) == [], result.reasons
    return code, result, summary


@pytest.fixture(scope="module")
def py_repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    require_docker(IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("nothing") / "repo")
    base = commit(
        repo,
        {
            "README.md": "# calc\n\nAdds and multiplies.\n",
            "calc.py": CALC,
            "half.py": HALF,
            "config/tolerance.json": '{"tol": 1e-9}\n',
            "tests/test_calc.py": TEST_CALC,
            "tests/test_half.py": TEST_HALF,
        },
        "base: everything passes",
    )
    heads = _heads(
        repo,
        base,
        {
            # the honest twins
            "docs": {
                "README.md": "# calc\n\nAdds and multiplies two numbers.\n",
                "docs/guide.md": "# Guide\n\nCall add(2, 3).\n",
            },
            "refactor": {
                "calc.py": CALC_REFACTORED,
                "half.py": "def half(x):\n    return x * 0.5\n",
            },
            "refactor_new_test": {
                "calc.py": CALC_REFACTORED,
                "tests/test_more.py": "from calc import add\n\n\n"
                "def test_add_zero():\n    assert add(0, 0) == 0\n",
            },
            # the attacks: add() broken, and the suite made to pass on both sides anyway
            "weakened": {
                "calc.py": CALC_BROKEN,
                "tests/test_calc.py": TEST_CALC.replace("== 5", "is not None"),
            },
            "deleted": {
                "calc.py": CALC_BROKEN,
                "tests/test_calc.py": "from calc import mul\n\n\n"
                "def test_mul():\n    assert mul(2, 3) == 6\n",
            },
            "conftest": {"calc.py": CALC_BROKEN, "tests/conftest.py": FORCE_PASS_CONFTEST},
            "tolerance": {
                "half.py": "def half(x):\n    return x // 2\n",
                "config/tolerance.json": '{"tol": 1.0}\n',
            },
        },
    )
    return repo, base, heads


@pytest.mark.parametrize("variant", ["docs", "refactor", "refactor_new_test"])
def test_a_pr_that_fixes_nothing_and_breaks_nothing_has_nothing_to_prove(
    py_repo: Repo, tmp_path: Path, variant: str
) -> None:
    repo, base, heads = py_repo
    code, result, summary = _compare(tmp_path, repo, base, heads[variant])
    assert result.verdict == "NOTHING_TO_PROVE", result.reasons
    assert code == CompareExit.NOTHING_TO_PROVE == 0
    assert result.counts.fail_to_pass == 0 and result.counts.pass_to_pass >= 3
    assert summary.startswith(
        "## verify-pr compare: NOTHING TO PROVE: no test goes from failing to passing; "
        "nothing that passed broke"
    )
    (reason,) = result.reasons
    assert "It proves no fix" in reason


@pytest.mark.parametrize(
    ("variant", "needle"),
    [
        ("weakened", "changes test paths of base"),
        ("deleted", "fail on its code"),  # run from base's file on head: it fails there
        ("conftest", "tests/conftest.py"),
        ("tolerance", "neither test nor code (config/tolerance.json)"),
    ],
)
def test_a_break_hidden_from_the_suite_is_never_nothing_to_prove(
    py_repo: Repo, tmp_path: Path, variant: str, needle: str
) -> None:
    repo, base, heads = py_repo
    code, result, _ = _compare(tmp_path, repo, base, heads[variant])
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert code == CompareExit.NOT_PROVEN
    assert result.counts.fail_to_pass == 0  # nothing turned green: it is the hiding that counts
    assert any(needle in r for r in result.reasons), result.reasons


def test_a_doctest_in_markdown_rewritten_to_the_bug_is_not_nothing_to_prove(
    tmp_path: Path,
) -> None:
    """Markdown is documentation, unless a run finds tests in it: then it is a test of base."""
    require_docker(IMAGE)
    repo = init_repo(tmp_path / "repo")
    double = "def double(x):\n    return 2 * x\n"
    base = commit(
        repo,
        {
            "pytest.ini": "[pytest]\naddopts = --doctest-glob=*.md\n",
            "double.py": double,
            "README.md": "# double\n\n>>> from double import double\n>>> double(2)\n4\n",
            "docs/guide.md": "# Guide\n\nNo examples here.\n",
            "test_double.py": "from double import double\n\n\n"
            "def test_zero():\n    assert double(0) == 0\n",
        },
        "base",
    )
    heads = _heads(
        repo,
        base,
        {
            "docs": {"docs/guide.md": "# Guide\n\nStill no examples.\n"},
            "hidden": {
                "double.py": double.replace("2 * x", "x * x"),
                "README.md": "# double\n\n>>> from double import double\n>>> double(2) > 0\nTrue\n",
            },
        },
    )
    code, result, _ = _compare(tmp_path / "docs", repo, base, heads["docs"])
    assert (code, result.verdict) == (0, "NOTHING_TO_PROVE"), result.reasons
    code, result, _ = _compare(tmp_path / "hidden", repo, base, heads["hidden"])
    assert (code, result.verdict) == (CompareExit.NOT_PROVEN, "NOT_PROVEN"), result.reasons
    assert any("files that hold tests (README.md)" in r for r in result.reasons), result.reasons
