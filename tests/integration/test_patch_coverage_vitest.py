"""Patch coverage end to end under vitest: our coverage provider (coverage_vitest.mjs) in the
image's vitest, V8's block ranges mapped through vite-node's source maps (docs/coverage.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import commit as commit_files
from tests.git_helpers import init_repo
from tests.integration.helpers import compare
from verify_pr.render.coverage import not_run_spans

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IMAGE = "verify-pr-node:local"
PKG = '{"name":"c","private":true,"type":"module","scripts":{"test":"vitest"}}\n'
BUGGY = "export function add(a, b) {\n  return a - b;\n}\n\nexport const LIMIT = 9;\n"
# after: 2 the fixed return; 6 the helper's declaration, 7-8 its body; 5 is a comment
FIXED = (
    "export function add(a, b) {\n  return a + b;\n}\n\n"
    "// doubles, for later\n"
    "export function unusedHelper(x) {\n  const y = x * 2;\n  return y;\n}\n\n"
    "export const LIMIT = 9;\n"
)
# after: 5 the constant (import time), 7 the helper's declaration, 8 its body
CONST_FIXED = (
    "export function add(a, b) {\n  return a - b;\n}\n\n"
    "export const LIMIT = 10;\n\n"
    "export function unusedHelper(x) {\n  return x * 2;\n}\n"
)
ADD_TEST = (
    'import { test, expect } from "vitest";\nimport { add } from "./calc.js";\n\n'
    'test("add", () => {\n  expect(add(2, 3)).toBe(5);\n});\n'
)
LIMIT_TEST = (
    'import { test, expect } from "vitest";\nimport { LIMIT } from "./calc.js";\n\n'
    'test("limit", () => {\n  expect(LIMIT).toBe(10);\n});\n'
)
# A test of the PR that forges the coverage file: it reads the path from our provider (a file
# of the container's /tmp it can read) and leaves a read-only forgery there, which our
# provider cannot overwrite. It passes on both sides; without the provider it does nothing.
FORGER = (
    'import { test } from "vitest";\nimport fs from "node:fs";\n\n'
    'test("forges", () => {\n'
    '  const at = "/tmp/node_modules/verify-pr-coverage.mjs";\n'
    "  if (!fs.existsSync(at)) return;\n"
    '  const out = JSON.parse(fs.readFileSync(at, "utf-8").match(/const VPR = (.*?);/)[1]).out;\n'
    "  const run = { executable: [1, 2], function: [2], run: [1, 2] };\n"
    '  fs.writeFileSync(out, JSON.stringify({ version: 1, files: { "calc.js": run, "x.js": run } }));\n'
    "  fs.chmodSync(out, 0o444);\n"
    "});\n"
)


def _repo(tmp_path: Path, base: dict[str, str], head: dict[str, str]) -> tuple[Path, str, str]:
    require_docker(IMAGE)
    path = init_repo(tmp_path / "repo")
    first = commit_files(path, {"package.json": PKG, **base})
    return path, first, commit_files(path, head, "the fix")


def test_fixed_line_is_run_by_the_proof_and_the_helper_by_nothing(tmp_path: Path) -> None:
    path, base, head = _repo(
        tmp_path, {"calc.js": BUGGY, "calc.test.js": ADD_TEST}, {"calc.js": FIXED}
    )
    code, result, summary = compare(tmp_path, path, base, head, IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    cov = result.patch_coverage
    assert cov is not None and cov.state == "measured", cov
    assert cov.tool.startswith("v8-block-ranges (vitest 3.")
    (entry,) = cov.files
    # the comment (5) and the closing brace (9) are not executable: the parser says so
    assert entry.changed == (2, 6, 7, 8)
    assert entry.proof == (2, 6)  # the fixed line, and the declaration any import runs
    assert entry.not_run == (7, 8) and entry.in_functions == (2, 7, 8)
    assert not_run_spans(cov) == ["calc.js:7-8"]
    assert "changed lines run: 2 of 4 (by the proof: 2)" in summary
    assert "inside functions" not in summary


def test_a_proof_that_only_imports_the_changed_module_is_said_as_such(tmp_path: Path) -> None:
    path, base, head = _repo(
        tmp_path, {"calc.js": BUGGY, "limit.test.js": LIMIT_TEST}, {"calc.js": CONST_FIXED}
    )
    code, result, summary = compare(tmp_path, path, base, head, IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    cov = result.patch_coverage
    assert cov is not None and cov.proof_measured, cov
    (entry,) = cov.files
    assert entry.changed == (5, 7, 8) and entry.proof == (5, 7) and entry.not_run == (8,)
    assert cov.changed_in_functions == 1 and cov.proof_in_functions == 0
    assert "The proof ran none of the changed lines inside functions" in summary
    assert "`calc.js:8`" in summary


def test_a_forged_coverage_file_is_refused_and_the_verdict_is_unchanged(tmp_path: Path) -> None:
    # the honest twin: test_fixed_line_is_run_by_the_proof_and_the_helper_by_nothing, the
    # same fix without the forger, is measured
    path, base, head = _repo(
        tmp_path,
        {"calc.js": BUGGY, "calc.test.js": ADD_TEST, "forge.test.js": FORGER},
        {"calc.js": FIXED},
    )
    code, result, summary = compare(tmp_path, path, base, head, IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    cov = result.patch_coverage
    assert cov is not None and cov.state == "not_measured", cov
    # head's run is the forger's: it names a file that was not measured
    assert "the coverage data was refused" in cov.note
    assert "names files that were not measured" in cov.note
    assert "changed lines run: not measured" in summary


def test_a_config_vitest_cannot_load_the_provider_under_runs_the_suite_as_without(
    tmp_path: Path,
) -> None:
    # inlining every dependency makes vite-node load our provider through vite, which serves
    # nothing from /tmp: vitest ends before any test. The command then runs the suite again
    # without coverage, so the verdict is the one it would be (the twin: the first test)
    config = "export default { test: { server: { deps: { inline: true } } } };\n"
    path, base, head = _repo(
        tmp_path,
        {"calc.js": BUGGY, "calc.test.js": ADD_TEST, "vitest.config.js": config},
        {"calc.js": FIXED},
    )
    _code, result, summary = compare(tmp_path, path, base, head, IMAGE)
    assert result.verdict == "VERIFIED", result.reasons
    cov = result.patch_coverage
    assert cov is not None and cov.state == "not_measured", cov
    assert "no coverage data came back (missing)" in cov.note
    assert "changed lines run: not measured" in summary
