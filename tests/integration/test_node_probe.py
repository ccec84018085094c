"""The JS import probe on real jest and vitest runs in the node image, which holds
``picocolors`` in /node_modules (a vite dependency). A tree named ``picocolors`` whose tests
require it by name would test the image's copy: NOT PROVEN, with the path. Control: the
same tree under a name the image does not hold is PASS."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.helpers import verify_pr
from tests.sandbox_helpers import make_repo

NODE_IMAGE = "verify-pr-node:local"
BROKEN = "module.exports = {}; // the PR broke it: no colours any more\n"
JEST_TEST = (
    "const pc = require('picocolors');\n"
    "test('red is a function', () => { expect(typeof pc.red).toBe('function'); });\n"
)
VITEST_TEST = (
    "import { test, expect } from 'vitest';\nimport pc from 'picocolors';\n"
    "test('red is a function', () => { expect(typeof pc.red).toBe('function'); });\n"
)


def tree(tmp_path: Path, runner: str, name: str) -> Path:
    pkg = {"name": name, "version": "1.0.0", "main": "index.js", "scripts": {"test": runner}}
    test = JEST_TEST if runner == "jest" else VITEST_TEST
    suffix = "test.js" if runner == "jest" else "test.mjs"
    return make_repo(
        tmp_path, {"package.json": json.dumps(pkg), "index.js": BROKEN, f"a.{suffix}": test}
    )


@pytest.mark.parametrize("runner", ["jest", "vitest"])
def test_own_name_resolving_to_the_images_copy_is_not_proven(tmp_path: Path, runner: str) -> None:
    run = verify_pr(tree(tmp_path, runner, "picocolors"), NODE_IMAGE, tmp_path / "out")
    reasons = run.verdict["reasons"]
    assert (run.code, run.verdict["verdict"]) == (4, "NOT_PROVEN"), reasons
    assert any("'picocolors' from /node_modules/picocolors/" in r for r in reasons), reasons
    # The suite itself passed (against the image's copy): the probe alone stops the PASS.
    assert run.verdict["totals"]["failed"] == 0 and run.verdict["totals"]["passed"] == 1


@pytest.mark.parametrize("runner", ["jest", "vitest"])
def test_control_a_name_the_image_does_not_hold_is_pass(tmp_path: Path, runner: str) -> None:
    run = verify_pr(tree(tmp_path, runner, "vpr-demo-not-installed"), NODE_IMAGE, tmp_path / "o")
    assert (run.code, run.verdict["verdict"]) == (0, "PASS"), run.verdict["reasons"]
    assert run.verdict["command"].startswith("node -e ")  # the probe ran, and found no copy
