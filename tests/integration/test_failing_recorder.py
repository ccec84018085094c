"""Expected failures come from the runner's own state (issue 21.5): jest-circus's `failing` and
vitest's `fails` flag on each test, recorded into the report by verify-pr's recorders, so a
marker the test file's lines do not show (destructured, aliased, split across lines) still
makes its pass an expected failure. Real containers on the real daemon.

Each hostile "fix" breaks the code and adds a test marked to fail that asserts the old,
right behaviour: on base's code its body passes (the runner fails it), on head its body fails
(the runner passes it), a FAIL_TO_PASS that the line reader alone let through as VERIFIED. The
honest twin fixes the code and adds a plain test; it is VERIFIED, re-run by id through the
same recorder."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare, verify_pr

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NODE_IMAGE = "verify-pr-node:local"
BUGGY = "exports.add = (a, b) => a - b;\nexports.mul = (a, b) => a * b;\n"
FIXED = BUGGY.replace("a - b", "a + b")
BROKEN = BUGGY.replace("a - b", "a * b")  # still wrong, differently: add(2, 3) is 6
# (marker, how the test file spells the marked test): {m} is jest's `failing`, vitest's `fails`
SPELLINGS = {
    "destructured": "const { {m} } = test;\n\n{m}('adds', () => { expect(add(2, 3)).toBe(-1); });\n",
    "alias": "const t = test.{m};\n\nt('adds', () => { expect(add(2, 3)).toBe(-1); });\n",
    "line-broken": "test.\n  {m}('adds', () => { expect(add(2, 3)).toBe(-1); });\n",
}
PLAIN_ADD = "test('adds', () => { expect(add(2, 3)).toBe(5); });\n"
MULTIPLIES = "test('multiplies', () => { expect(mul(2, 3)).toBe(6); });\n"


@dataclass(frozen=True)
class Flavour:
    runner: str
    marker: str
    package: str
    code_name: str
    imports: str

    def code(self, text: str) -> str:
        if self.runner == "jest":
            return text
        return text.replace("exports.add =", "export const add =").replace(
            "exports.mul =", "export const mul ="
        )

    def test_file(self, *bodies: str) -> str:
        return self.imports + "\n" + "".join(bodies)


FLAVOURS = {
    "jest": Flavour(
        "jest",
        "failing",
        '{"name":"x","private":true,"scripts":{"test":"jest"}}',
        "math.js",
        "const { add, mul } = require('./math');\n",
    ),
    "vitest": Flavour(
        "vitest",
        "fails",
        '{"name":"x","private":true,"type":"module","scripts":{"test":"vitest run"}}',
        "math.mjs",
        "import { expect, test } from 'vitest';\nimport { add, mul } from './math.mjs';\n",
    ),
}


@dataclass
class Repo:
    flavour: Flavour
    repo: Path
    base: str
    heads: dict[str, str]


@pytest.fixture(scope="module", params=sorted(FLAVOURS))
def js_repo(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Repo:
    require_docker(NODE_IMAGE)
    flavour = FLAVOURS[request.param]
    repo = init_repo(tmp_path_factory.mktemp(f"failing-{flavour.runner}") / "repo")
    test_name = "math.test.js"
    base = commit(
        repo,
        {
            "package.json": flavour.package,
            flavour.code_name: flavour.code(BUGGY),
            test_name: flavour.test_file(MULTIPLIES),
        },
        "base: add() is wrong",
    )
    heads = {}
    checkout(repo, base)
    heads["fix"] = commit(
        repo,
        {
            flavour.code_name: flavour.code(FIXED),
            test_name: flavour.test_file(MULTIPLIES, PLAIN_ADD),
        },
        "fix add, with a plain test",
    )
    for name, spelling in SPELLINGS.items():
        checkout(repo, base)
        marked = spelling.replace("{m}", flavour.marker)
        heads[name] = commit(
            repo,
            {
                flavour.code_name: flavour.code(BROKEN),
                test_name: flavour.test_file(MULTIPLIES, marked),
            },
            f"break add, with a test marked to fail ({name})",
        )
    return Repo(flavour, repo, base, heads)


def test_the_honest_fix_with_a_plain_test_is_verified(js_repo: Repo, tmp_path: Path) -> None:
    code, result, _ = compare(
        tmp_path, js_repo.repo, js_repo.base, js_repo.heads["fix"], NODE_IMAGE, "--flake-runs", "1"
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert {p.id.split("::")[-1] for p in result.proofs} == {"adds"}
    assert all(p.reruns == 1 for p in result.proofs)  # the re-run by id read its records too


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_marker_the_lines_do_not_show_is_not_verified(
    js_repo: Repo, tmp_path: Path, spelling: str
) -> None:
    head = js_repo.heads[spelling]
    code, result, _ = compare(
        tmp_path, js_repo.repo, js_repo.base, head, NODE_IMAGE, "--flake-runs", "0"
    )
    assert (code, result.verdict) == (4, "NOT_PROVEN"), result.reasons
    assert result.proofs == ()
    # the runner failed it on base's code (its body passed) and passed it on head: read from
    # the runner's state, head's pass is an expected failure, never a proof
    by_name = {t.id.split("::")[-1]: t for t in result.transitions}
    assert (by_name["adds"].before, by_name["adds"].head) == ("failed", "expected-failure")


ENV_HOOK_REFUSED = """const { TestEnvironment } = require('jest-environment-node');
module.exports = class extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    Object.defineProperty(this, 'handleTestEvent', { value: async () => {}, writable: false });
  }
};
"""
ENV_HOOK_OWN = """const { TestEnvironment } = require('jest-environment-node');
module.exports = class extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name === 'test_done') this.global.seen = (this.global.seen || 0) + 1;
  }
};
"""


@pytest.mark.parametrize(
    ("env", "second", "verdict"),
    [
        # the environment's own hook still runs: it counted the first test
        (ENV_HOOK_OWN, "expect(globalThis.seen).toBe(1);", "PASS"),
        (ENV_HOOK_REFUSED, "expect(1).toBe(1);", "NOT_PROVEN"),
    ],
    ids=["own-hook", "hook-refused"],
)
def test_jest_passes_without_their_records_are_not_trusted(
    tmp_path: Path, env: str, second: str, verdict: str
) -> None:
    """Fail closed: an environment that refuses the recorder's hook leaves its passes
    unrecorded, and the run is NOT PROVEN; its twin, an environment with its own hook (which
    the recorder chains), is read as usual."""
    require_docker(NODE_IMAGE)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "package.json").write_text(
        json.dumps({"name": "x", "private": True, "jest": {"testEnvironment": "./env.js"}})
    )
    (repo / "env.js").write_text(env)
    (repo / "a.test.js").write_text(
        f"test('first', () => {{}});\ntest('second', () => {{ {second} }});\n"
    )
    run = verify_pr(repo, NODE_IMAGE, tmp_path / "out", "--runner", "jest")
    assert run.verdict["verdict"] == verdict, run.verdict["reasons"]
    unrecorded = any("expected failures not recorded" in r for r in run.verdict["reasons"])
    assert unrecorded is (verdict == "NOT_PROVEN")
    assert [c["status"] for c in run.verdict["testcases"]] == ["passed", "passed"]


@pytest.mark.parametrize("runner", sorted(FLAVOURS))
def test_every_spelling_of_the_marker_is_read_from_the_runner(tmp_path: Path, runner: str) -> None:
    """One run: a marked test whose body fails is an expected failure however it is spelled
    (the lines show none of these), and a plain passing test beside them stays a pass."""
    require_docker(NODE_IMAGE)
    flavour = FLAVOURS[runner]
    m = flavour.marker
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "package.json").write_text(flavour.package)
    (repo / flavour.code_name).write_text(flavour.code(FIXED))
    describe = "" if runner == "jest" else "import { describe } from 'vitest';\n"
    (repo / "math.test.js").write_text(
        flavour.test_file(
            describe,
            f"const {{ {m}: renamed }} = test;\n",
            f"const computed = test[['{m[:4]}', '{m[4:]}'].join('')];\n",
            "test('plain', () => { expect(add(2, 3)).toBe(5); });\n",
            "renamed('renamed', () => { throw new Error('x'); });\n",
            "computed('computed', () => { throw new Error('x'); });\n",
            f"test\n  .{m}\n  .each([[1]])('each %i', () => {{ throw new Error('x'); }});\n",
            f"describe('group', () => {{\n  const {{ {m} }} = test;\n"
            f"  {m}('nested', () => {{ throw new Error('x'); }});\n}});\n",
        )
    )
    want = {
        "plain": "passed",
        "renamed": "expected-failure",
        "computed": "expected-failure",
        "each 1": "expected-failure",
        "nested": "expected-failure",
    }
    if runner == "vitest":  # vitest also takes the marker as a test option
        with (repo / "math.test.js").open("a") as file:
            file.write("test('option', { fails: true }, () => { throw new Error('x'); });\n")
        want["option"] = "expected-failure"
    run = verify_pr(repo, NODE_IMAGE, tmp_path / "out", "--runner", runner)
    assert run.verdict["verdict"] == "PASS", run.verdict["reasons"]
    assert {c["name"]: c["status"] for c in run.verdict["testcases"]} == want
