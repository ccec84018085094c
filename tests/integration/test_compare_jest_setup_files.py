"""A jest project's setup files (``setupFiles``, ``setupFilesAfterEnv``) and the proof.

Reported: an honest fix of ``add`` in a jest project whose config names a setup file got NOT
PROVEN ("1 FAIL_TO_PASS test(s) could not be re-run by id", no coverage data). On main these
fixtures do not show it: a setup file the PR does not touch, named in package.json or
jest.config.js, as setupFiles or setupFilesAfterEnv, plain or loading a product module of its
own that extends expect, leaves the fix VERIFIED (re-run by id and traced like the same
project without one). The report's own fixture (``"./setup.js"``, a second test reading a
helper) is VERIFIED on main too; its last recorded run had every run time out under the
helpers' 60 s ``--timeout`` on a loaded machine, and a re-run that times out leaves its test
"could not be re-run by id" with no coverage data: load, not the setup file. A setup file that loads the changed module itself makes that module
harness (harness_closure): NOT PROVEN by design, not tested here.

The attack twin changes only the setup file, which patches ``add`` so the test passes on
base's code: the setup file is harness, NOT PROVEN."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareVerdict

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NODE_IMAGE = "verify-pr-node:local"
CODE = "exports.add = (a, b) => a {op} b;\nexports.mul = (a, b) => a * b;\n"
TESTS = """const math = require('./math');
test('adds', () => { expect(math.add(2, 3)).toBe(5); });
test('multiplies', () => { expect(math.mul(2, 3)).toBe(6); });
"""
# It names no product module (one that does makes that module harness: harness_closure).
SETUP = "global.SETUP_RAN = true;\n"
# The attack: the setup file patches the product so the test passes on base's code.
SETUP_TRICK = "const math = require('./math');\nmath.add = (a, b) => 5;\n"
# A setup file that loads a product module of its own, which extends expect: that module is
# harness (harness_closure); the PR does not touch it. The test uses its matcher: the positive
# control that the setup file ran in every run the proof stands on.
SETUP_HELPER = "require('./matchers');\n"
MATCHERS = "expect.extend({ toBeFive(x) { return { pass: x === 5, message: () => 'not 5' }; } });\n"


def _files(where: str, key: str, helper: bool = False) -> dict[str, str]:
    files = {"math.js": CODE.format(op="-"), "math.test.js": TESTS, "setup.js": SETUP}
    if helper:
        files |= {"setup.js": SETUP_HELPER, "matchers.js": MATCHERS}
        files["math.test.js"] = TESTS.replace("toBe(5)", "toBeFive()")
    pkg: dict[str, object] = {"name": "x", "private": True, "scripts": {"test": "jest"}}
    if where == "package.json":
        pkg["jest"] = {key: ["<rootDir>/setup.js"]}
    else:
        files["jest.config.js"] = f"module.exports = {{ {key}: ['<rootDir>/setup.js'] }};\n"
    files["package.json"] = json.dumps(pkg)
    return files


@pytest.mark.parametrize(
    ("where", "key"),
    [
        ("package.json", "setupFilesAfterEnv"),
        ("jest.config.js", "setupFilesAfterEnv"),
        ("package.json", "setupFiles"),
    ],
)
@pytest.mark.parametrize("head", ["fix", "trick"])
def test_a_setup_file_leaves_a_fix_verified_and_proves_no_setup_trick(
    tmp_path: Path, where: str, key: str, head: str
) -> None:
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(repo, _files(where, key), "base")
    checkout(repo, base)
    change = {"math.js": CODE.format(op="+")} if head == "fix" else {"setup.js": SETUP_TRICK}
    sha = commit(repo, change, head)
    code, result, _ = compare(tmp_path, repo, base, sha, NODE_IMAGE, "--flake-runs", "1")
    proofs = {p.id.rsplit(" ", 1)[-1].rsplit(":", 1)[-1] for p in result.proofs}
    if head == "fix":
        assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
        assert proofs == {"adds"}
        return
    # the setup file makes adds pass on base's code: it is the PR's only change, and harness
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert any("setup.js judges the PR" in r for r in result.reasons), result.reasons


def test_a_setup_file_that_loads_a_product_module_leaves_the_fix_verified(tmp_path: Path) -> None:
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(repo, _files("package.json", "setupFilesAfterEnv", helper=True), "base")
    checkout(repo, base)
    sha = commit(repo, {"math.js": CODE.format(op="+")}, "fix")
    code, result, _ = compare(tmp_path, repo, base, sha, NODE_IMAGE, "--flake-runs", "1")
    assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
