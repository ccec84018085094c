"""PRs that change the expectation instead of the code: each family is NOT PROVEN with a
reason naming it, and the real fix in the same repository (the positive control) is VERIFIED.

Real containers on the real daemon. Every trick here was VERIFIED by the old two-run
comparison (base's run paired with head's by test id)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PYTHON_IMAGE = "verify-pr-python:local"
NODE_IMAGE = "verify-pr-node:local"

CALC_BUGGY = (
    "_seen = []\n\n\ndef add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n\n\n"
    "def record(x):\n    _seen.append(x)\n    return len(_seen)\n"
)
CALC_FIXED = CALC_BUGGY.replace("return a - b", "return a + b")
RENDER_BUGGY = 'def render(name):\n    return "hello " + name.lower()\n'
RENDER_FIXED = 'def render(name):\n    return "Hello " + name\n'
TEST_CALC = (
    "from calc import add, mul, record\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n\n\n"
    'def test_record():\n    assert record("a") >= 1\n'
)
TEST_PARAMS = (
    "import pytest\n\nfrom calc import add\n\n\n"
    '@pytest.mark.parametrize(("a", "b", "want"), [(2, 3, 5), (1, 0, 1)], '
    'ids=["two_three", "one_zero"])\n'
    "def test_sum(a, b, want):\n    assert add(a, b) == want\n"
)
TEST_RENDER = (
    "from pathlib import Path\n\nfrom render import render\n\n\n"
    "def test_render_matches_golden():\n"
    '    expected = (Path(__file__).parent / "data" / "expected.txt").read_text()\n'
    '    assert render("World") == expected\n'
)


@dataclass
class PyRepo:
    repo: Path
    base: str
    heads: dict[str, str]


@pytest.fixture(scope="module")
def py_repo(tmp_path_factory: pytest.TempPathFactory) -> PyRepo:
    require_docker(PYTHON_IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("negatives") / "repo")
    base = commit(
        repo,
        {
            "pytest.ini": "[pytest]\n",
            "calc.py": CALC_BUGGY,
            "render.py": RENDER_BUGGY,
            "tests/test_calc.py": TEST_CALC,
            "tests/test_params.py": TEST_PARAMS,
            "tests/test_render.py": TEST_RENDER,
            "tests/data/expected.txt": "Hello World",
        },
        "base: add() and render() are wrong",
    )
    variants: dict[str, dict[str, str | bytes | None]] = {
        # the positive control: the code is fixed, the tests are untouched
        "fix": {"calc.py": CALC_FIXED, "render.py": RENDER_FIXED},
        # a new function and a new test file that cannot even import on base's code
        "new_code": {
            "calc.py": CALC_BUGGY + "\n\ndef sub(a, b):\n    return a - b\n",
            "tests/test_sub.py": "from calc import sub\n\n\n"
            "def test_sub():\n    assert sub(5, 3) == 2\n\n\n"
            "def test_sub_zero():\n    assert sub(5, 0) == 5\n",
        },
        "weakened": {
            "tests/test_calc.py": TEST_CALC.replace("== 5", "is not None"),
        },
        "replaced": {
            "tests/test_calc.py": TEST_CALC.replace(
                "def test_add():\n    assert add(2, 3) == 5",
                "def test_add():\n    assert add(3, 0) == 3",
            ),
        },
        "golden": {"tests/data/expected.txt": "hello world"},
        "shuffled": {
            # the failing case is gone; a passing case took its id
            "tests/test_params.py": TEST_PARAMS.replace(
                "[(2, 3, 5), (1, 0, 1)]", "[(1, 0, 1), (3, 0, 3)]"
            ),
        },
        "xfail": {
            # fixes add(), breaks mul(), and marks mul's test as expected to fail
            "calc.py": CALC_FIXED.replace("return a * b", "return a + b"),
            "tests/test_calc.py": TEST_CALC.replace(
                "def test_mul", "@pytest.mark.xfail(reason='later')\ndef test_mul"
            ).replace("from calc", "import pytest\n\nfrom calc"),
        },
        "order": {
            # a new test that fails on base's code only after test_record ran before it
            "calc.py": CALC_BUGGY.replace(
                "    _seen.append", "    _seen.clear()\n    _seen.append"
            ),
            "tests/test_z_order.py": (
                'from calc import record\n\n\ndef test_first_record():\n    assert record("z") == 1\n'
            ),
        },
    }
    heads = {}
    for name, files in variants.items():
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return PyRepo(repo, base, heads)


def _tails(ids: object) -> set[str]:
    return {str(i).split("::")[-1] for i in ids}  # type: ignore[attr-defined]


def test_positive_control_real_fix_is_verified_with_the_proof_first(
    py_repo: PyRepo, tmp_path: Path
) -> None:
    code, result, summary = compare(
        tmp_path, py_repo.repo, py_repo.base, py_repo.heads["fix"], PYTHON_IMAGE
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert _tails(p.id for p in result.proofs) == {
        "test_add",
        "test_sum[two_three]",
        "test_render_matches_golden",
    }
    assert result.test_paths == () and result.code_paths == ("calc.py", "render.py")
    assert result.base_own is None  # no test path changed: base ran once
    assert all(p.reruns == 3 for p in result.proofs)
    add = next(p for p in result.proofs if p.id.endswith("::test_add"))
    assert (add.file, add.line) == ("tests/test_calc.py", 4)
    assert add.message is not None and "assert -1 == 5" in add.message
    # the proof leads the summary: the first line after the title names a FAIL_TO_PASS test
    lines = summary.splitlines()
    assert lines[2].startswith("**FAIL_TO_PASS** (3)")
    assert "tests/test\\_calc.py:4" in summary or "tests/test_calc.py:4" in summary


def test_new_test_file_that_cannot_load_on_base_is_the_proof(
    py_repo: PyRepo, tmp_path: Path
) -> None:
    code, result, summary = compare(
        tmp_path, py_repo.repo, py_repo.base, py_repo.heads["new_code"], PYTHON_IMAGE
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert _tails(p.id for p in result.proofs) == {"test_sub", "test_sub_zero"}
    assert all("cannot import name 'sub'" in (p.message or "") for p in result.proofs)
    assert all(p.reruns == 3 for p in result.proofs)  # by id, each side, three times
    assert result.test_paths == ("tests/test_sub.py",) and result.base_own is None
    assert result.counts.added == 0 and result.counts.removed == 0
    assert "cannot import name" in summary


@pytest.mark.parametrize(
    ("variant", "needle", "named"),
    [
        ("weakened", "changed, not the code", "test_add"),
        ("replaced", "changed, not the code", "test_add"),
        # base's own run by id (issue 34 (a)) no longer runs an untouched test that passes on
        # both sides: the golden rewrite is NOT PROVEN for proving nothing (docs/threat-model.md)
        ("golden", "no test fails on base's code and passes on head", "does not show"),
        ("shuffled", "changed, not the code", "test_sum[two_three]"),
        ("xfail", "newly expected to fail", "test_mul"),
        ("xfail", "expected-failure markers", "tests/test_calc.py"),
        ("order", "flaky", "test_first_record"),
    ],
)
def test_changing_the_expectation_is_not_proven(
    py_repo: PyRepo, tmp_path: Path, variant: str, needle: str, named: str
) -> None:
    code, result, _ = compare(
        tmp_path,
        py_repo.repo,
        py_repo.base,
        py_repo.heads[variant],
        PYTHON_IMAGE,
        "--flake-runs",
        "1",
    )
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    hits = [r for r in result.reasons if needle in r]
    assert hits and named in hits[0], result.reasons


def test_order_dependent_failure_counts_without_the_rerun(py_repo: PyRepo, tmp_path: Path) -> None:
    # mutation check of the flake rule: with no re-run the order-dependent test is proof
    _code, result, _ = compare(
        tmp_path,
        py_repo.repo,
        py_repo.base,
        py_repo.heads["order"],
        PYTHON_IMAGE,
        "--flake-runs",
        "0",
    )
    assert result.verdict == "VERIFIED", result.reasons
    assert _tails(p.id for p in result.proofs) == {"test_first_record"}


JS_CODE_BUGGY = "exports.add = (a, b) => a - b;\nexports.mul = (a, b) => a * b;\n"
JS_CODE_FIXED = JS_CODE_BUGGY.replace("a - b", "a + b")
JS_CODE_TRICK = JS_CODE_FIXED.replace("a * b", "a + b")
JS_TEST = (
    "{imports}"
    "test('adds', () => {{ expect(add(2, 3)).toBe(5); }});\n"
    "test('multiplies', () => {{ expect(mul(2, 3)).toBe(6); }});\n"
)


@pytest.mark.parametrize(
    ("runner", "marker"),
    [("jest", "test.failing"), ("vitest", "test.fails")],
)
def test_js_expected_failure_marker_is_not_proven_and_the_fix_is(
    tmp_path: Path, runner: str, marker: str
) -> None:
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    if runner == "jest":
        imports = "const { add, mul } = require('./math');\n\n"
        pkg = '{"name":"x","private":true,"scripts":{"test":"jest"}}'
        code_name, code_of = "math.js", lambda text: text
    else:
        imports = (
            "import { expect, test } from 'vitest';\nimport { add, mul } from './math.mjs';\n\n"
        )
        pkg = '{"name":"x","private":true,"type":"module","scripts":{"test":"vitest run"}}'
        code_name = "math.mjs"

        def code_of(text: str) -> str:
            return text.replace("exports.add =", "export const add =").replace(
                "exports.mul =", "export const mul ="
            )

    test_text = JS_TEST.format(imports=imports)
    base = commit(
        repo,
        {"package.json": pkg, code_name: code_of(JS_CODE_BUGGY), "math.test.js": test_text},
    )
    fix = commit(repo, {code_name: code_of(JS_CODE_FIXED)}, "fix")
    checkout(repo, base)
    trick = commit(
        repo,
        {
            code_name: code_of(JS_CODE_TRICK),
            "math.test.js": test_text.replace("test('multiplies'", f"{marker}('multiplies'"),
        },
        "fix add, break mul, mark it expected to fail",
    )
    code, result, _ = compare(tmp_path / "fix", repo, base, fix, NODE_IMAGE, "--flake-runs", "1")
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert _tails(p.id for p in result.proofs) == {"adds"}
    assert all(p.reruns == 1 for p in result.proofs)  # re-run by id worked
    code, result, _ = compare(
        tmp_path / "trick", repo, base, trick, NODE_IMAGE, "--flake-runs", "1"
    )
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    # the marker makes the broken mul() pass in the runner's report; here it is an expected
    # failure on head (never a pass, never proof), and a base test newly expected to fail
    head = {_tails([t.id]).pop(): t.head for t in result.transitions}
    assert head == {"adds": "passed", "multiplies": "expected-failure"}
    assert _tails(p.id for p in result.proofs) == {"adds"}
    assert any("newly expected to fail" in r and "multiplies" in r for r in result.reasons)
    assert any("expected-failure markers" in r and "math.test.js" in r for r in result.reasons)


def test_jest_snapshot_rewritten_to_the_bug_is_not_proven_and_the_fix_is(
    tmp_path: Path,
) -> None:
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    test_text = (
        "const { add } = require('../math');\n\n"
        "test('adds', () => { expect(add(2, 3)).toMatchSnapshot(); });\n"
    )
    snapshot = "// Jest Snapshot v1, https://goo.gl/fbAQLP\n\nexports[`adds 1`] = `{value}`;\n"
    base = commit(
        repo,
        {
            "package.json": '{"name":"x","private":true,"scripts":{"test":"jest"}}',
            "math.js": JS_CODE_BUGGY,
            "__tests__/math.test.js": test_text,
            "__tests__/__snapshots__/math.test.js.snap": snapshot.replace("{value}", "5"),
        },
    )
    fix = commit(repo, {"math.js": JS_CODE_FIXED}, "fix")
    checkout(repo, base)
    trick = commit(
        repo,
        {"__tests__/__snapshots__/math.test.js.snap": snapshot.replace("{value}", "-1")},
        "update the snapshot",
    )
    code, result, _ = compare(tmp_path / "fix", repo, base, fix, NODE_IMAGE, "--flake-runs", "1")
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    code, result, _ = compare(
        tmp_path / "trick", repo, base, trick, NODE_IMAGE, "--flake-runs", "1"
    )
    assert (code, result.verdict) == (4, "NOT_PROVEN")
    assert result.test_paths == ("__tests__/__snapshots__/math.test.js.snap",)
    hits = [r for r in result.reasons if "changed, not the code" in r]
    assert hits and "adds" in hits[0], result.reasons
