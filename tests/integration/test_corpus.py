"""Real published projects (tests/corpus/manifest.json): ``verify-pr run`` must agree with the
runner run directly in the same image, verdict and per-test counts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_docker
from tests.integration.helpers import (
    _NODE_DIRECT,
    MANIFEST,
    counts,
    fetch,
    fetch_npm,
    locked_run,
    unpack,
    verify_pr,
)

PYTHON_IMAGE = "verify-pr-python:local"
NODE_IMAGE = "verify-pr-node:local"
_SUMMARY_WORD = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def direct_pytest(
    tree: Path, src_layout: bool = False
) -> tuple[int, tuple[int, int, int, int, int, int]]:
    """pytest itself, in the same image and lockdown, counted from its own summary line; a src
    layout runs as after an editable install (/work/src on the path)."""
    path = "PYTHONPATH=/work/src " if src_layout else ""
    script = (
        f"{path}python3 -m pytest -p no:cacheprovider -q -o junit_family=xunit1 2>&1 | tail -n 3"
    )
    proc = locked_run(tree, PYTHON_IMAGE, script)
    last = proc.stdout.strip().splitlines()[-1]
    found = {word.rstrip("s"): int(n) for n, word in _SUMMARY_WORD.findall(last)}
    assert found, proc.stdout + proc.stderr
    passed = found.get("passed", 0)
    failed = found.get("failed", 0)
    error = found.get("error", 0)
    skipped = found.get("skipped", 0)
    expected = found.get("xfailed", 0) + found.get("xpassed", 0)  # verify-pr: expected-failure
    total = passed + failed + error + skipped + expected
    return proc.returncode, (total, passed, failed, error, skipped, expected)


def direct_node(tree: Path, runner: str) -> tuple[int, tuple[int, int, int, int, int]]:
    """jest or vitest itself, in the same image and lockdown, counted from its own JSON report:
    each test by its status, and each file that failed outside any test as one error."""
    script = (
        f"{_NODE_DIRECT[runner]} >/tmp/log 2>&1; rc=$?; "
        "cat /tmp/direct.json || tail -n 40 /tmp/log >&2; exit $rc"
    )
    proc = locked_run(tree, NODE_IMAGE, script)
    assert proc.stdout.strip(), proc.stderr
    report = json.loads(proc.stdout)
    suites = report["testResults"]
    results = [a["status"] for suite in suites for a in suite["assertionResults"]]
    passed = results.count("passed")
    failed = results.count("failed")
    assert (passed, failed) == (report["numPassedTests"], report["numFailedTests"]), report
    skipped = sum(r in ("skipped", "pending", "todo", "disabled") for r in results)
    # A file that failed with no failed test in it failed to load (jest's own summary line
    # counts it as a failed suite; vitest's JSON has no runtime-error count at all).
    error = sum(
        suite["status"] == "failed"
        and not any(a["status"] == "failed" for a in suite["assertionResults"])
        for suite in suites
    )
    return proc.returncode, (passed + failed + error + skipped, passed, failed, error, skipped)


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST["npm"], ids=lambda e: f"{e['name']}-{e['version']}")
def test_npm_tarball_matches_its_runner(entry: dict[str, Any], tmp_path: Path) -> None:
    require_docker(NODE_IMAGE)
    tree = unpack(fetch_npm(entry), tmp_path / "src")
    runner = entry["runner"]
    code, expected = direct_node(tree, runner)
    run = verify_pr(tree, NODE_IMAGE, tmp_path / "out", "--runner", runner, "--timeout", "300")
    v = run.verdict
    assert counts(v) == expected, v.get("reasons")
    direct_ok = code == 0 and expected[2] == expected[3] == 0 and expected[0] > expected[4]
    assert v["verdict"] == ("PASS" if direct_ok else "FAIL"), v["reasons"]
    assert run.code == (0 if direct_ok else 1)
    # A real suite, not an empty one that both sides agree on.
    assert expected[1] >= entry["min_passed"], expected


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST["pypi"], ids=lambda e: f"{e['name']}-{e['version']}")
def test_pypi_sdist_matches_pytest(entry: dict[str, Any], tmp_path: Path) -> None:
    require_docker(PYTHON_IMAGE)
    tree = unpack(fetch(entry), tmp_path / "src")
    src_layout = bool(entry.get("src_layout"))
    _, expected = direct_pytest(tree, src_layout)
    run = verify_pr(tree, PYTHON_IMAGE, tmp_path / "out", "--runner", "pytest", "--timeout", "300")
    v = run.verdict
    assert ("PYTHONPATH=/work/src " in v["command"]) == src_layout, v["command"]
    assert (*(counts(v) or ()), v["totals"]["expected_failure"]) == expected, v.get("reasons")
    direct_ok = expected[2] == expected[3] == 0 and expected[1] > 0
    assert v["verdict"] == ("PASS" if direct_ok else "FAIL"), v["reasons"]
    assert run.code == (0 if direct_ok else 1)


@pytest.mark.slow
def test_broken_src_tree_with_the_good_package_in_the_image_is_never_pass(
    tmp_path: Path,
) -> None:
    # pluggy is src layout and the image holds an unbroken pluggy (pytest's own dependency).
    # Broken in the tree, it must never PASS: the run imports the tree's copy, not the image's.
    require_docker(PYTHON_IMAGE)
    (entry,) = [e for e in MANIFEST["pypi"] if e["name"] == "pluggy"]
    tree = unpack(fetch(entry), tmp_path / "src")
    manager = tree / "src" / "pluggy" / "_manager.py"
    text = manager.read_text()
    marker = "    def register(self, plugin: _Plugin, name: str | None = None) -> str | None:\n"
    assert marker in text
    manager.write_text(text.replace(marker, marker + "        raise RuntimeError('broken')\n"))
    run = verify_pr(tree, PYTHON_IMAGE, tmp_path / "out", "--runner", "pytest", "--timeout", "300")
    reasons = run.verdict["reasons"]
    assert run.verdict["verdict"] != "PASS" and run.code != 0, reasons
    # The tree's copy ran (pytest itself registers plugins through it): its error is named.
    assert any("RuntimeError: broken" in r for r in reasons), reasons
    # Control: the unbroken tree is PASS with the direct run's counts (the parametrized test).


@pytest.mark.docker
@pytest.mark.slow
def test_broken_npm_tarball_is_never_pass(tmp_path: Path) -> None:
    # jest-when's code broken in the tree: its own suite must not PASS (the control is the
    # unbroken tarball, PASS with the direct run's counts in the parametrized test).
    require_docker(NODE_IMAGE)
    (entry,) = [e for e in MANIFEST["npm"] if e["name"] == "jest-when"]
    tree = unpack(fetch_npm(entry), tmp_path / "src")
    code = tree / "src" / "when.js"
    code.write_text("throw new Error('jest-when broken')\n" + code.read_text())
    run = verify_pr(tree, NODE_IMAGE, tmp_path / "out", "--runner", "jest", "--timeout", "300")
    reasons = run.verdict["reasons"]
    assert run.verdict["verdict"] == "FAIL" and run.code == 1, reasons
    # Each test requires the module in its beforeEach: every one of the 85 fails on it, outside
    # its own body, so each is an error (issue 33, class 7: a hook's failure is not the
    # test's), and the file's own failure message is one more errored row.
    assert counts(run.verdict) == (86, 0, 0, 86, 0), reasons
