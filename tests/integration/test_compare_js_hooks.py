"""A hook's failure taken for the test's (issue 33, class 7), jest and vitest on real containers.

The PR fixes nothing: it bumps a version in the code and adds a ``beforeEach`` to the test file
that throws unless the version is new. On base's code with the PR's tests the hook fails every
test of its block, so ``multiplies``, which passed in base's own run and whose body never ran,
failed on "before" and passed on head: it was VERIFIED. The recorders now say when a failed test
failed outside its own body (jest-circus: no ``test_fn_failure`` for it; vitest: a hook of the
test that did not pass), the parser makes that an error, and an error outside the body of a
test that passed in base's own run is no proof, as pytest's setup errors are not.

The honest twin: the same file with a hook that passes on both sides, and the PR's fix of
``add``, whose body fails on base's code: VERIFIED."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareVerdict

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NODE_IMAGE = "verify-pr-node:local"
CODE = "exports.VERSION = {version};\nexports.add = (a, b) => a {op} b;\nexports.mul = (a, b) => a * b;\n"
TESTS = """{imports}
describe('math', () => {{
  beforeEach(() => {{ {hook} }});
  test('adds', () => {{ expect(math.add(2, 3)).toBe(5); }});
  test('multiplies', () => {{ expect(math.mul(2, 3)).toBe(6); }});
}});
"""
GUARD = "if (math.VERSION !== 2) throw new Error('needs version 2');"


def _esm(text: str) -> str:
    return text.replace("exports.", "export const ")


@pytest.mark.parametrize("runner", ["jest", "vitest"])
@pytest.mark.parametrize("head", ["fix", "trick"])
def test_a_hook_that_throws_on_base_s_code_makes_no_proof(
    tmp_path: Path, runner: str, head: str
) -> None:
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    if runner == "jest":
        pkg = '{"name":"x","private":true,"scripts":{"test":"jest"}}'
        code_name, test_name, to_code = "math.js", "math.test.js", str
        imports = "const math = require('./math');"
    else:
        pkg = '{"name":"x","private":true,"type":"module","scripts":{"test":"vitest run"}}'
        code_name, test_name, to_code = "math.mjs", "math.test.mjs", _esm
        imports = (
            "import { beforeEach, describe, expect, test } from 'vitest';\n"
            "import * as math from './math.mjs';"
        )
    base = commit(
        repo,
        {
            "package.json": pkg,
            code_name: to_code(CODE.format(version=1, op="-")),
            test_name: TESTS.format(imports=imports, hook="math.VERSION;"),
        },
        "base",
    )
    checkout(repo, base)
    if head == "fix":
        change = {code_name: to_code(CODE.format(version=1, op="+"))}
    else:
        change = {
            code_name: to_code(CODE.format(version=2, op="-")),
            test_name: TESTS.format(imports=imports, hook=GUARD),
        }
    sha = commit(repo, change, head)
    code, result, _ = compare(tmp_path, repo, base, sha, NODE_IMAGE, "--flake-runs", "1")
    proofs = {p.id.rsplit(" ", 1)[-1].rsplit(":", 1)[-1] for p in result.proofs}
    if head == "fix":
        assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
        assert proofs == {"adds"}
        return
    assert result.counts.fail_to_pass == 1  # multiplies: failed on before through the hook
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert proofs == set()
    assert any("errored outside its own body" in r for r in result.reasons), result.reasons


# class 4 for jest: a module the tests import that base's setup file loads; the PR makes it
# register a matcher that always passes, under names computed at run time
SETUP_PKG = (
    '{"name":"x","private":true,"scripts":{"test":"jest"},'
    '"jest":{"setupFilesAfterEnv":["./setup.js"]}}'
)
SETUP_TESTS = (
    "const math = require('./math');\nconst { HELPER } = require('./helper');\n\n"
    "test('adds', () => { expect(math.add(2, 3)).toBe(5); });\n"
    "test('helps', () => { expect(HELPER).toBe(1); });\n"
)
FORCE_MATCHER = (
    'globalThis["ex" + "pect"]["ext" + "end"]'
    '({ toBe: () => ({ pass: true, message: () => "" }) });\n'
)


@pytest.mark.parametrize("head", ["fix", "trick"])
def test_a_module_a_jest_setup_file_loads_that_reaches_the_globals_is_harness(
    tmp_path: Path, head: str
) -> None:
    """base's setup file requires helper.js, which the tests import too; the PR adds a matcher
    to helper.js, under names computed at run time, that passes every ``toBe``. Contained
    before this fixture was written (the closure follows a setup file's ``require`` into
    helper.js: harness); kept as the instance of class 4 for jest, with its honest twin, the
    fix of ``add``."""
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "package.json": SETUP_PKG,
            "setup.js": "require('./helper');\n",
            "helper.js": "exports.HELPER = 1;\n",
            "math.js": CODE.format(version=1, op="-"),
            "math.test.js": SETUP_TESTS,
        },
        "base",
    )
    checkout(repo, base)
    if head == "fix":
        change = {"math.js": CODE.format(version=1, op="+")}
    else:
        change = {"helper.js": "exports.HELPER = 1;\n" + FORCE_MATCHER}
    sha = commit(repo, change, head)
    code, result, _ = compare(tmp_path, repo, base, sha, NODE_IMAGE, "--flake-runs", "1")
    if head == "fix":
        assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
        assert result.harness_files_changed == ()
        return
    assert result.counts.fail_to_pass == 1  # the matcher made ``adds`` pass on head
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert result.harness_files_changed == ("helper.js",)
