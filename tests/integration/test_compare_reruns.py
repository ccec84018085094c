"""The proof's re-runs of a jest suite: one jest process per side repeats the selection, each
repetition in its own module registry and test environment, and every repetition is judged.

Real containers on the real daemon. The proof test counts its own runs in a file under /tmp,
which the sandbox of a side keeps from one repetition to the next and a fresh sandbox does
not: on head it fails on its third run, so the third repetition is seen to run and to count
(NOT PROVEN, flaky), and with two repetitions it never fails (the positive control)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import commit, init_repo
from tests.integration.helpers import compare

pytestmark = [pytest.mark.docker, pytest.mark.slow]

NODE_IMAGE = "verify-pr-node:local"
BUGGY = "exports.add = (a, b) => a - b;\n"
FIXED = "exports.add = (a, b) => a + b;\n"
# a test that fails on its third run in one sandbox (it counts its runs in /tmp)
COUNTING_TEST = """const fs = require('fs');
const { add } = require('./math');

test('adds', () => {
  const file = '/tmp/adds-runs';
  const runs = (fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0) + 1;
  fs.writeFileSync(file, String(runs));
  expect(add(2, 3)).toBe(5);
  expect(runs).toBeLessThan(3);
});

test('stays', () => { expect(1).toBe(1); });
"""


def _repo(tmp_path: Path) -> tuple[Path, str, str]:
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "package.json": '{"name":"x","private":true,"scripts":{"test":"jest"}}',
            "math.js": BUGGY,
            "math.test.js": COUNTING_TEST,
        },
    )
    fix = commit(repo, {"math.js": FIXED}, "fix add")
    return repo, base, fix


def test_every_repetition_in_the_one_jest_process_is_judged(tmp_path: Path) -> None:
    require_docker(NODE_IMAGE)
    repo, base, fix = _repo(tmp_path)
    # three repetitions in one process per side: the third run on head fails
    code, result, _ = compare(tmp_path / "three", repo, base, fix, NODE_IMAGE)
    assert (code, result.verdict) == (4, "NOT_PROVEN"), result.reasons
    hits = [r for r in result.reasons if "flaky" in r]
    assert hits and "adds" in hits[0], result.reasons
    # positive control: two repetitions (the test's second run still passes) prove the fix
    code, result, _ = compare(tmp_path / "two", repo, base, fix, NODE_IMAGE, "--flake-runs", "2")
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert [p.id.split("::")[-1] for p in result.proofs] == ["adds"]
    assert all(p.reruns == 2 for p in result.proofs)
