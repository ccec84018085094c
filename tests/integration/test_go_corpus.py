"""Real Go modules (Debian's golang-*-dev packages, standard library only; pinned in
tests/corpus/manifest.json "debian_go"): ``verify-pr run --runner go`` must agree with
``go test -json`` run directly in the same image, verdict and per-test counts.

The direct run is counted here on its own, not by verify-pr's parser: every test's last
pass/fail/skip event, and a package that failed with no failed test as one error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_docker
from tests.integration.go_helpers import GO_IMAGE, module_tree
from tests.integration.helpers import MANIFEST, counts, locked_run, verify_pr
from verify_pr.contract import new_report_path
from verify_pr.runners.go.runner import GoRunner


def direct_go(tree: Path) -> tuple[int, tuple[int, int, int, int, int]]:
    # the runner's own command and settings, its stream printed: no sandbox, no parser
    path = new_report_path(".json")
    proc = locked_run(tree, GO_IMAGE, f"{GoRunner().command(path)}; rc=$?; cat {path}; exit $rc")
    assert proc.stdout.strip(), proc.stderr
    last: dict[tuple[str, str], str] = {}
    package_failed: set[str] = set()
    failed_tests: set[str] = set()
    for line in proc.stdout.splitlines():
        event = json.loads(line)
        action, package, test = event.get("Action"), event.get("Package"), event.get("Test")
        if action not in ("pass", "fail", "skip") or not package:
            continue
        if test:
            last[(package, test)] = action
            if action == "fail":
                failed_tests.add(package)
        elif action == "fail":
            package_failed.add(package)
    statuses = list(last.values())
    passed, failed, skipped = (statuses.count(a) for a in ("pass", "fail", "skip"))
    error = len(package_failed - failed_tests)
    return proc.returncode, (passed + failed + skipped + error, passed, failed, error, skipped)


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST["debian_go"], ids=lambda e: e["package"])
def test_debian_go_module_matches_go_test(entry: dict[str, Any], tmp_path: Path) -> None:
    require_docker(GO_IMAGE)
    tree = module_tree(entry, tmp_path)
    code, expected = direct_go(tree)
    run = verify_pr(
        tree, GO_IMAGE, tmp_path / "out", "--runner", "go", "--timeout", "900", timeout=1200
    )
    v = run.verdict
    assert counts(v) == expected, v.get("reasons")
    direct_ok = code == 0 and expected[2] == expected[3] == 0 and expected[0] > expected[4]
    assert v["verdict"] == ("PASS" if direct_ok else "FAIL"), v["reasons"]
    assert run.code == (0 if direct_ok else 1)
    # a real suite, not an empty one both sides agree on
    assert expected[1] >= entry["min_passed"], expected
