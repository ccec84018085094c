"""A test of base gone on head is judged by running it (base's file by id over head's code),
in real containers on the real daemon: the attacks (a PR that breaks a passing test and
deletes it, or renames it with the broken value as its new expectation) beside the honest
twins (a fix that renames a test, a fix that corrects an expected value in a parametrize id).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareResult
from verify_pr.models.removed import RemovedStanding

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PYTHON_IMAGE = "verify-pr-python:local"

SHAPES = (
    "def area(w, h):\n    return w * h\n\n\n"
    "def perimeter(w, h):\n    return 2 * (w + h)\n\n\n"
    "def double(x):\n    return x + x + 1\n"
)
FIXED = SHAPES.replace("x + x + 1", "x + x")
BROKEN = FIXED.replace("2 * (w + h)", "2 * (w + h) + 1")
HEAD = "import pytest\n\nfrom shapes import area, double, perimeter\n\n\n"
AREA = "def test_area():\n    assert area(2, 3) == 6\n\n\n"
PERIMETER = "def test_perimeter():\n    assert perimeter(2, 3) == 10\n\n\n"
DOUBLE = (
    '@pytest.mark.parametrize(("x", "want"), [(1, 3)])\n'
    "def test_double(x, want):\n    assert double(x) == want\n"
)
TWO = "\n\ndef test_double_two():\n    assert double(2) == 4\n"


@pytest.fixture(scope="module")
def repo_heads(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, str]]:
    require_docker(PYTHON_IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("removed") / "repo")
    base = commit(
        repo,
        {"shapes.py": SHAPES, "tests/test_shapes.py": HEAD + AREA + PERIMETER + DOUBLE},
        "base: double() is off by one, and its test expects it",
    )
    variants: dict[str, dict[str, str | bytes | None]] = {
        # honest: the fix with a new test, test_area renamed (same body), test_perimeter
        # rewritten under a new name
        "rename": {
            "shapes.py": FIXED,
            "tests/test_shapes.py": HEAD
            + AREA.replace("test_area", "test_area_of_a_rectangle")
            + PERIMETER.replace("test_perimeter", "test_perimeter_of_a_square").replace(
                "(2, 3) == 10", "(2, 2) == 8"
            )
            + DOUBLE.replace("(1, 3)", "(1, 2)")
            + TWO,
        },
        # honest: the fix, and the wrong expectation corrected in the parametrize id
        "correct": {
            "shapes.py": FIXED,
            "tests/test_shapes.py": HEAD + AREA + PERIMETER + DOUBLE.replace("(1, 3)", "(1, 2)"),
        },
        # attack: a real fix with its test, and perimeter() broken with its test deleted
        "delete": {
            "shapes.py": BROKEN,
            "tests/test_shapes.py": HEAD + AREA + DOUBLE.replace("(1, 3)", "(1, 2)") + TWO,
        },
        # attack: the same, the broken test renamed with the broken value as its expectation
        "rename_broken": {
            "shapes.py": BROKEN,
            "tests/test_shapes.py": HEAD
            + AREA
            + PERIMETER.replace("test_perimeter", "test_perimeter_v2").replace("10", "11")
            + DOUBLE.replace("(1, 3)", "(1, 2)")
            + TWO,
        },
    }
    heads = {}
    for name, files in variants.items():
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return repo, base, heads


def _run(tmp_path: Path, repo: Path, base: str, head: str) -> tuple[CompareResult, str]:
    _code, result, summary = compare(tmp_path, repo, base, head, PYTHON_IMAGE, "--flake-runs", "1")
    return result, summary


def _standings(result: CompareResult) -> dict[str, RemovedStanding]:
    return {t.id.split("::")[-1]: t.standing for t in result.removed_tests}


def test_a_fix_that_renames_a_test_is_verified(
    repo_heads: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = repo_heads
    result, summary = _run(tmp_path, repo, base, heads["rename"])
    assert result.verdict == "VERIFIED", result.reasons
    assert _standings(result) == {
        "test_area": RemovedStanding.PASSED,
        "test_perimeter": RemovedStanding.PASSED,
        "test_double[1-3]": RemovedStanding.CHANGED,
    }
    assert result.removed_run is not None  # the fourth run, embedded for the publish job
    assert "pass on its code, run from base's file" in result.reasons[0]
    assert "passes on the PR's code, run from base's file" in summary


def test_a_fix_that_corrects_an_expected_value_in_the_id_is_verified_and_named(
    repo_heads: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = repo_heads
    result, summary = _run(tmp_path, repo, base, heads["correct"])
    assert result.verdict == "VERIFIED", result.reasons
    assert _standings(result) == {"test_double[1-3]": RemovedStanding.CHANGED}
    assert [p.id.split("::")[-1] for p in result.proofs] == ["test_double[1-2]"]
    assert "changed expectations" in result.reasons[0]
    assert "an expectation the PR changed, review it" in summary


@pytest.mark.parametrize("variant", ["delete", "rename_broken"])
def test_a_pr_that_breaks_a_test_and_removes_it_is_not_proven(
    repo_heads: tuple[Path, str, dict[str, str]], tmp_path: Path, variant: str
) -> None:
    repo, base, heads = repo_heads
    result, summary = _run(tmp_path, repo, base, heads[variant])
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert _standings(result)["test_perimeter"] is RemovedStanding.FAILED
    assert any("removes or renames fail on its code" in r for r in result.reasons), result.reasons
    assert "the PR removes a test its code breaks" in summary
    assert result.proofs  # the real fix was there: only the removed test stands against it


NODE_IMAGE = "verify-pr-node:local"
MATH = "exports.add = (a, b) => a - b;\nexports.one = () => 1;\n"
ADDS = "test('adds', () => { expect(add(2, 3)).toBe(5); });\n"
ONE = "test('one', () => { expect(one()).toBe(1); });\n"
REQUIRE = "const { add, one } = require('../math');\n\n"


@pytest.mark.parametrize(
    ("variant", "verdict", "standing"),
    [
        # honest: the fix, and the test of one() renamed
        ("rename", "VERIFIED", RemovedStanding.PASSED),
        # attack: the fix, and one() broken with its test deleted
        ("delete", "NOT_PROVEN", RemovedStanding.FAILED),
    ],
)
def test_jest_a_removed_test_is_judged_by_its_run_on_head(
    tmp_path: Path, variant: str, verdict: str, standing: RemovedStanding
) -> None:
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    pkg = '{"name":"m","private":true,"scripts":{"test":"jest"}}'
    base = commit(
        repo,
        {"package.json": pkg, "math.js": MATH, "tests/math.test.js": REQUIRE + ONE},
        "base: add() subtracts",
    )
    fixed = MATH.replace("a - b", "a + b")
    variants: dict[str, dict[str, str | bytes | None]] = {
        "rename": {
            "math.js": fixed,
            "tests/math.test.js": REQUIRE + ADDS + ONE.replace("'one'", "'returns one'"),
        },
        "delete": {
            "math.js": fixed.replace("=> 1;", "=> 2;"),
            "tests/math.test.js": REQUIRE + ADDS,
        },
    }
    head = commit(repo, variants[variant], variant)
    _code, result, summary = compare(tmp_path, repo, base, head, NODE_IMAGE, "--flake-runs", "1")
    assert result.verdict == verdict, result.reasons
    assert [(t.id.split("::")[-1], t.standing) for t in result.removed_tests] == [("one", standing)]
    assert "REMOVED or renamed, run on head" in summary
