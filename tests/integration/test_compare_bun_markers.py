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
