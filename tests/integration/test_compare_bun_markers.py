"""bun's markers, failed closed (issue 33, class 5), on real containers.

bun reports no expected-failure marker, and the line reader misses a destructured one: the PR
changes ``add`` to another wrong answer and turns the test into an inverted one with
``const { failing } = test``. Its body passes on base's code (reported failed) and fails on
head's (reported passed): it was VERIFIED. A test in a file that refers to ``failing`` or
``todo`` anywhere is now no proof. The honest twin (the fix, a plain test) stays VERIFIED."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareVerdict

pytestmark = [pytest.mark.docker, pytest.mark.slow]

BUN_IMAGE = "verify-pr-bun:local"
PLAIN = (
    'import { expect, test } from "bun:test";\nimport { add } from "./math.js";\n\n'
    'test("adds", () => { expect(add(2, 3)).toBe(5); });\n'
)
INVERTED = (
    'import {{ expect, test }} from "bun:test";\nimport {{ add }} from "./math.js";\n\n'
    "const {{ {spelling} }} = test;\n\n"
    '{name}("adds", () => {{ expect(add(2, 3)).toBe(-1); }});\n'
)


@pytest.mark.parametrize(
    ("head", "spelling", "name"),
    [("fix", "", ""), ("trick", "failing", "failing"), ("trick", "failing: f", "f")],
    ids=["fix", "destructured", "renamed"],
)
def test_an_inverted_bun_test_proves_nothing(
    tmp_path: Path, head: str, spelling: str, name: str
) -> None:
    require_docker(BUN_IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "package.json": '{"name":"x","private":true,"scripts":{"test":"bun test"}}',
            "math.js": "export const add = (a, b) => a - b;\n",
            "math.test.js": PLAIN,
        },
        "base",
    )
    checkout(repo, base)
    if head == "fix":
        change = {"math.js": "export const add = (a, b) => a + b;\n"}
    else:  # still wrong, differently; the test inverted
        change = {
            "math.js": "export const add = (a, b) => a + b + 1;\n",
            "math.test.js": INVERTED.format(spelling=spelling, name=name),
        }
    sha = commit(repo, change, head)
    code, result, _ = compare(tmp_path, repo, base, sha, BUN_IMAGE, "--flake-runs", "1")
    if head == "fix":
        assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
        return
    assert result.counts.fail_to_pass == 1  # bun called the inverted test's failure a pass
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert any("bun reports no expected-failure marker" in r for r in result.reasons)


# A marker reached through the test file's imports: the test file never says ``failing``.
HELPER_TEST = (
    'import {{ expect }} from "bun:test";\nimport {{ add }} from "../math.js";\n'
    'import {{ check }} from "{helper}";\n\n'
    'check("adds", () => {{ expect(add(2, 3)).toBe(-1); }});\n'
)
HELPERS = {
    # re-exports test.failing under another name
    "reexport": {
        "test/helper.js": 'import { test } from "bun:test";\nexport const check = test.failing;\n'
    },
    # destructured in the helper, re-exported by a second one (an alias chain)
    "chain": {
        "test/helper.js": 'export { check } from "./inner.js";\n',
        "test/inner.js": 'import { test as t } from "bun:test";\nconst { failing: check } = t;\nexport { check };\n',
    },
    # the marker's name never written: a computed member of an alias of test
    "computed": {
        "test/helper.js": 'import { test as t } from "bun:test";\nexport const check = t["fail" + "ing"];\n',
    },
}
PLAIN_HELPER = {
    "test/helper.js": 'import { test } from "bun:test";\nexport const check = (name, body) => test(name, body);\n'
}


@pytest.mark.parametrize("head", ["fix", "reexport", "chain", "computed"])
def test_a_marker_from_a_helper_module_proves_nothing(tmp_path: Path, head: str) -> None:
    """The test file imports its ``test`` from a helper of the PR's; the helper hands it
    ``test.failing``. The honest twin: the same helper handing the plain ``test``, with the fix."""
    require_docker(BUN_IMAGE)
    repo = init_repo(tmp_path / "repo")
    plain = HELPER_TEST.replace("toBe(-1)", "toBe(5)").format(helper="./helper.js")
    base = commit(
        repo,
        {
            "package.json": '{"name":"x","private":true,"scripts":{"test":"bun test"}}',
            "math.js": "export const add = (a, b) => a - b;\n",
            "test/math.test.js": plain,
            **PLAIN_HELPER,
        },
        "base",
    )
    checkout(repo, base)
    if head == "fix":
        change = {"math.js": "export const add = (a, b) => a + b;\n"}
    else:  # still wrong, differently; the helper inverts the test
        change = {
            "math.js": "export const add = (a, b) => a + b + 1;\n",
            "test/math.test.js": HELPER_TEST.format(helper="./helper.js"),
            **HELPERS[head],
        }
    sha = commit(repo, change, head)
    code, result, _ = compare(tmp_path, repo, base, sha, BUN_IMAGE, "--flake-runs", "1")
    if head == "fix":
        assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
        return
    assert result.counts.fail_to_pass == 1  # bun called the inverted test's failure a pass
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    assert any("bun reports no expected-failure marker" in r for r in result.reasons)
