"""Test support taken for code by its name (issue 33, class 2), end to end on real containers.

The tests compute the expected value with a helper in a folder the runner's own names miss
(another case, another spelling, a ``testing`` subpackage only the tests import, a JS helper
folder). The attack fixes nothing: it weakens the helper to agree with the bug. Counted as
code, "before" got base's strict helper and head the PR's weak one, and the PR was VERIFIED.
As test support it is the PR's version on both sides: no test fails on base's code. Each has
its honest twin (the fix of the code, the helper untouched) that stays VERIFIED."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.compare_helpers import BUGGY, FIXED, IMAGE
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareVerdict

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NODE_IMAGE = "verify-pr-node:local"
STRICT = "def expected_add(a, b):\n    return a + b\n"
WEAK = "def expected_add(a, b):\n    return a - b\n"  # agrees with the bug


def _py_files(folder: str) -> dict[str, str]:
    module = folder.replace("/", ".")
    tests = (
        f"from calc import add\nfrom {module}.expect import expected_add\n\n\n"
        "def test_add():\n    assert add(2, 3) == expected_add(2, 3)\n"
    )
    files = {
        "pytest.ini": "[pytest]\n",
        "calc.py": BUGGY,
        "test_calc.py": tests,
        f"{folder}/__init__.py": "",
        f"{folder}/expect.py": STRICT,
    }
    if "/" in folder:  # a subpackage of the product: the package holds it
        files[f"{folder.split('/')[0]}/__init__.py"] = "VERSION = 1\n"
    return files


@pytest.mark.parametrize("folder", ["Tests", "test_utils", "mypkg/testing"])
def test_a_weakened_python_helper_is_no_proof_and_the_fix_is(tmp_path: Path, folder: str) -> None:
    require_docker(IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(repo, _py_files(folder), "base")
    fix = commit(repo, {"calc.py": FIXED}, "fix")
    checkout(repo, base)
    trick = commit(repo, {f"{folder}/expect.py": WEAK}, "weaken the helper")
    code, result, _ = compare(tmp_path / "fix", repo, base, fix, IMAGE, "--flake-runs", "1")
    assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
    code, result, _ = compare(tmp_path / "trick", repo, base, trick, IMAGE, "--flake-runs", "1")
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert result.code_paths == ()
    assert result.test_paths == (f"{folder}/expect.py",)
    assert result.counts.fail_to_pass == 0


JS_TEST = (
    "const { add } = require('../math');\nconst { expectedAdd } = require('./__helpers__/expect');\n"
    "\ntest('adds', () => { expect(add(2, 3)).toBe(expectedAdd(2, 3)); });\n"
)


def test_a_weakened_js_helper_is_no_proof_and_the_fix_is(tmp_path: Path) -> None:
    """jest: the helper in ``src/__helpers__/`` beside a test named ``*.test.js``."""
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    helper = "exports.expectedAdd = (a, b) => a {op} b;\n"
    base = commit(
        repo,
        {
            "package.json": '{"name":"x","private":true,"scripts":{"test":"jest"}}',
            "math.js": "exports.add = (a, b) => a - b;\n",
            "src/math.test.js": JS_TEST,
            "src/__helpers__/expect.js": helper.format(op="+"),
        },
    )
    fix = commit(repo, {"math.js": "exports.add = (a, b) => a + b;\n"}, "fix")
    checkout(repo, base)
    trick = commit(repo, {"src/__helpers__/expect.js": helper.format(op="-")}, "weaken")
    code, result, _ = compare(tmp_path / "fix", repo, base, fix, NODE_IMAGE, "--flake-runs", "1")
    assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
    code, result, _ = compare(
        tmp_path / "trick", repo, base, trick, NODE_IMAGE, "--flake-runs", "1"
    )
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert result.code_paths == ()
    assert result.counts.fail_to_pass == 0
