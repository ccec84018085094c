"""Real Go history: pure-Go libraries of Debian (golang-*, standard library only) whose fix
is a real pair, either two Debian releases of the upstream code (base = the older .orig
tarball, head = the newer) or one release and the upstream fix Debian carries as a patch
(base = the .orig tarball, head = it with the patch applied). Each pair is made into a
two-commit git repo here and compared with ``--runner go``; its FAIL_TO_PASS set is checked
against ``go test -json`` run directly in the same image and lockdown, SWE-bench's way: head's
test files over base's code, then head; a test that fails there and passes on head.

The files come from the pool of the host's Debian archive, pinned by sha256 in
tests/corpus/manifest.json ("go_history"), cached like the run corpus. Controls (a release that
changes no behaviour its tests see) must be NOT PROVEN."""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_docker
from tests.integration.go_helpers import GO_IMAGE, source_trees
from tests.integration.helpers import MANIFEST, compare, locked_run
from tests.integration.history_helpers import two_commits
from verify_pr.contract import new_report_path
from verify_pr.models.compare import Transition
from verify_pr.models.report import TestCase
from verify_pr.runners.go.runner import GoRunner

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def direct_go(tree: Path) -> dict[str, str]:
    """``go test -json`` itself (the runner's command, its stream printed, no parser of
    verify-pr's): ``import path::TestName`` -> the test's last pass/fail/skip."""
    path = new_report_path(".json")
    proc = locked_run(tree, GO_IMAGE, f"{GoRunner().command(path)}; cat {path}")
    found: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        event = json.loads(line)
        action, test = event.get("Action"), event.get("Test")
        if action in ("pass", "fail", "skip") and test:
            found[f"{event['Package']}::{test}"] = action
    assert found, proc.stdout[-2000:] + proc.stderr[-2000:]
    return found


def go_test_files(tree: Path) -> set[str]:
    """The ``*_test.go`` files ``./...`` builds: none under testdata/ or vendor/, nor under a
    directory or in a file whose name starts with "." or "_" (the go command's own rule)."""
    found = set()
    for path in tree.rglob("*_test.go"):
        parts = path.relative_to(tree).parts
        if any(p in ("testdata", "vendor") or p[:1] in "._" for p in parts):
            continue
        found.add(path.relative_to(tree).as_posix())
    return found


def over_base(base: Path, head: Path, dest: Path) -> Path:
    """By hand, independently of verify-pr's rule: base's tree with head's test files (every
    ``*_test.go`` the go command builds; base's own that head deletes are gone)."""
    shutil.copytree(base, dest, symlinks=True)
    for rel in go_test_files(base):
        (dest / rel).unlink()
    for rel in go_test_files(head):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(head / rel, dest / rel)
    return dest


def direct_fail_to_pass(base: Path, head: Path, scratch: Path) -> list[str]:
    """The tests that fail with head's tests over base's code and pass on head (two direct
    runs, in parallel: they are independent). Failed means go test's own fail event: a test
    that never ran there (another test's panic ended its package's binary first) is not one."""
    over = over_base(base, head, scratch / "before")
    with ThreadPoolExecutor(2) as pool:
        before, after = pool.map(direct_go, (over, head))
    return sorted(i for i, s in after.items() if s == "pass" and before.get(i) == "fail")


def go_id(case: TestCase) -> str:
    """The id the direct run gives the same test: the go report's file is the import path."""
    return f"{case.file}::{case.name}"


@pytest.mark.parametrize("entry", MANIFEST["go_history"], ids=lambda e: e["id"])
def test_go_pair_matches_go_test_run_directly(entry: dict[str, Any], tmp_path: Path) -> None:
    require_docker(GO_IMAGE)
    base, head = source_trees(entry, tmp_path)
    assert direct_fail_to_pass(base, head, tmp_path) == entry["fail_to_pass"]
    repo, base_sha, head_sha = two_commits(tmp_path, base, head)
    extra = ["--runner", "go", "--flake-runs", "1", "--timeout", "900"]
    if entry["strict_harness"]:
        extra.append("--strict-harness")
    _code, result, _ = compare(tmp_path / "cmp", repo, base_sha, head_sha, GO_IMAGE, *extra)
    assert result.verdict == entry["verdict"], result.reasons
    fixed = [t.id for t in result.transitions if t.transition is Transition.FAIL_TO_PASS]
    cases = {c.id: c for c in result.head.testcases}
    assert sorted(go_id(cases[i]) for i in fixed) == entry["fail_to_pass"], result.reasons
    if entry["verdict"] == "VERIFIED":
        assert sorted(go_id(cases[p.id]) for p in result.proofs) == entry["fail_to_pass"]
