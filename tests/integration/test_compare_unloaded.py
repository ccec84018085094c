"""A test file the PR does not touch that cannot load on head (``verify.unloaded``), real
containers: forgiven when it never loaded before the PR either (base's own run, scheduled
whole for it, fails to load it with the same error), never when the PR broke its import to hide
its tests. Each attack has its honest twin in the same repository; the publish side re-derives
each VERIFIED without a contradiction."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareResult
from verify_pr.models.verdict import VerdictFile
from verify_pr.publish.consistency import compare_problems

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PYTHON_IMAGE = "verify-pr-python:local"
NODE_IMAGE = "verify-pr-node:local"

JS_MATH_BUGGY = "exports.add = (a, b) => a - b;\nexports.mul = (a, b) => a * b;\n"
JS_MATH_FIXED = JS_MATH_BUGGY.replace("a - b", "a + b")
JS_MUL_TEST = (
    "const { mul } = require('../math');\n\ntest('mul', () => expect(mul(2, 3)).toBe(6));\n"
)
JS_ADD_TEST = "\ntest('add', () => expect(require('../math').add(2, 3)).toBe(5));\n"
# an ES module: jest without a transform cannot load it, on base as on head
JS_STALE = "import { mul } from '../math';\n\ntest('stale', () => expect(mul(1, 1)).toBe(1));\n"
JS_HELPER = "exports.double = (x) => x * 2;\n"
JS_DOUBLE_TEST = "const { double } = require('../helper');\n\ntest('doubles', () => expect(double(2)).toBe(4));\n"

PY_CALC_BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
PY_CALC_FIXED = PY_CALC_BUGGY.replace("a - b", "a + b")
PY_MUL_TEST = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
PY_ADD_TEST = "\n\ndef test_add():\n    from calc import add\n\n    assert add(2, 3) == 5\n"
# a test of a module the project dropped: it cannot load on base as on head
PY_STALE = "import vpr_dropped_module  # noqa: F401\n\n\ndef test_stale():\n    assert True\n"
PY_SHAPES = "def area(w, h):\n    return w * h\n"
PY_SHAPES_TEST = (
    "from shapes import area\n\nfrom tests.shapes.sizes import SIZES\n\n\n"
    "def test_area():\n    assert [area(*s) for s in SIZES] == [6]\n"
)
PY_SIZES = "SIZES = [(2, 3)]\n"  # a shared test helper (a test path: the PR's version in before)


def _reason_naming(result: CompareResult, file: str, needle: str) -> None:
    assert result.verdict == "NOT_PROVEN", result.reasons
    hits = [r for r in result.reasons if file in r and needle in r]
    assert hits, result.reasons


def test_jest_a_spec_that_never_loaded_is_forgiven_a_spec_the_pr_broke_is_not(
    tmp_path: Path,
) -> None:
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "package.json": '{"name":"x","private":true,"scripts":{"test":"jest"}}',
            "math.js": JS_MATH_BUGGY,
            "helper.js": JS_HELPER,
            "__tests__/math.test.js": JS_MUL_TEST,
            "__tests__/stale.test.js": JS_STALE,
            "__tests__/double.test.js": JS_DOUBLE_TEST,
        },
    )
    fix = {"math.js": JS_MATH_FIXED, "__tests__/math.test.js": JS_MUL_TEST + JS_ADD_TEST}
    honest = commit(repo, fix, "fix add, with its test")
    checkout(repo, base)
    # the same fix, and a helper that now doubles wrongly and throws as it loads: the
    # untouched double.test.js cannot load on head, its failing test hidden behind that
    broken = "exports.double = (x) => x * 3;\nthrow new Error('helper needs a rewrite');\n"
    attack = commit(repo, {**fix, "helper.js": broken}, "fix add, break helper")

    code, result, _ = compare(tmp_path / "honest", repo, base, honest, NODE_IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert {p.id.split("::")[-1] for p in result.proofs} == {"add"}
    # base's own run ran (whole) for it, and could not load the stale spec either
    assert result.base_own is not None
    assert any(c.file == "__tests__/stale.test.js" for c in result.base_own.testcases)
    assert compare_problems(result, honest) == []

    code, result, _ = compare(tmp_path / "attack", repo, base, attack, NODE_IMAGE)
    assert code == 4
    _reason_naming(result, "__tests__/double.test.js", "loads in base's own run")
    # the stale spec is no reason of its own: only the file the PR broke is named
    assert not any("__tests__/stale.test.js" in r for r in result.reasons), result.reasons


def test_pytest_a_module_that_never_loaded_is_forgiven_one_the_pr_broke_is_not(
    tmp_path: Path,
) -> None:
    require_docker(PYTHON_IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "pytest.ini": "[pytest]\n",
            "calc.py": PY_CALC_BUGGY,
            "shapes.py": PY_SHAPES,
            "tests/test_calc.py": PY_MUL_TEST,
            "tests/test_stale.py": PY_STALE,
            "tests/__init__.py": "",
            "tests/shapes/__init__.py": "",
            "tests/shapes/sizes.py": PY_SIZES,
            "tests/shapes/test_shapes.py": PY_SHAPES_TEST,
        },
    )
    fix = {"calc.py": PY_CALC_FIXED, "tests/test_calc.py": PY_MUL_TEST + PY_ADD_TEST}
    honest = commit(repo, fix, "fix add, with its test")
    checkout(repo, base)
    # the PR's code module raises as it is imported: the untouched test_shapes.py cannot be
    # collected on head, and its (now failing) test is hidden behind that
    broken = "def area(w, h):\n    return w + h\n\n\nraise RuntimeError('shapes is moving')\n"
    code_attack = commit(repo, {**fix, "shapes.py": broken}, "fix add, break shapes")
    checkout(repo, base)
    # the PR's shared test helper raises as it is imported: the before run has it too, so
    # only base's own run shows that test_shapes.py loaded before the PR
    sizes = "SIZES = [(2, 3)]\nraise RuntimeError('sizes are moving')\n"
    helper_attack = commit(repo, {**fix, "tests/shapes/sizes.py": sizes}, "break a helper")
    code, result, _ = compare(tmp_path / "honest", repo, base, honest, PYTHON_IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert {p.id.split("::")[-1] for p in result.proofs} == {"test_add"}
    # head's own NOT PROVEN (the image lacks the dropped module) is the FAIL it shows
    assert result.head.verdict == "FAIL", result.head.reasons
    own_file = tmp_path / "honest" / "out" / "base-own" / "verdict.json"
    written = VerdictFile.model_validate_json(own_file.read_text())
    assert written == result.base_own and written.verdict == "FAIL", written.reasons
    assert compare_problems(result, honest) == []

    code, result, _ = compare(tmp_path / "code", repo, base, code_attack, PYTHON_IMAGE)
    assert code == 4
    _reason_naming(result, "tests/shapes/test_shapes.py", "loads in base's own run")

    code, result, _ = compare(tmp_path / "helper", repo, base, helper_attack, PYTHON_IMAGE)
    assert code == 4
    _reason_naming(result, "tests/shapes/test_shapes.py", "loads in base's own run")
