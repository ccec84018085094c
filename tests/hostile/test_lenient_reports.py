"""Issue 12, family 4: a report that a lenient reader takes for a pass.

The PR owns its test process, so its code rewrites the real runner's report after the runner
wrote it, and forces exit 0: a failure moved below a testcase's direct children, keys repeated
with passing values, failed tests relabelled todo/pending with their failure messages kept.
Positive control: a lenient reader of the very report the run returned (direct children only,
last key wins, status only) sees no failure. verify-pr refuses the report or counts the
failure. The golden fixtures in tests/fixtures pin each rule on its own.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tests.hostile.helpers import control
from tests.hostile.verdicts import FAILING_JEST, FAILING_PYTEST, NODE_IMAGE, run, tree, verdict

NEST_FAILURES = """import atexit, os, re, sys

def _rewrite():
    path = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--junitxml=")][0]
    with open(path) as f:
        text = f.read()
    text = re.sub(r"(<failure\\b.*?</failure>)", r"<system-out>\\1</system-out>", text, flags=re.S)
    text = re.sub(r'failures="[0-9]+"', 'failures="0"', text)
    with open(path, "w") as f:
        f.write(text)
    os._exit(0)

atexit.register(_rewrite)
"""


def _report(out: Path) -> bytes:
    return (out / "report.txt").read_bytes()


def _lenient_junit_failures(data: bytes) -> int:
    """How a reader that looks only at a testcase's direct children counts failures."""
    root = ET.fromstring(data)  # noqa: S314 - the control reads our own run's report
    return sum(
        1 for case in root.iter("testcase") if any(c.tag in ("failure", "error") for c in case)
    )


def test_failure_below_a_testcase_is_still_a_failure(python_image: str, tmp_path: Path) -> None:
    repo = tree(tmp_path, {**FAILING_PYTEST, "conftest.py": NEST_FAILURES})
    out = tmp_path / "out"
    ours = run(repo, python_image, out, "--runner", "pytest")
    assert ours.verdict["sandbox"]["exit_code"] == 0
    assert b"<system-out><failure" in _report(out)
    assert _lenient_junit_failures(_report(out)) == 0
    control("a direct-children reader of the same report counts 0 failures, exit 0")
    verdict(ours, "FAIL")


# globalSetup runs in jest's main process: its exit hook rewrites the report jest wrote there.
REWRITE_JEST = """const fs = require("fs");
module.exports = async () => {
  process.on("exit", () => {
    const arg = process.argv.find((a) => a.startsWith("--outputFile="));
    const path = arg.slice("--outputFile=".length);
    const report = JSON.parse(fs.readFileSync(path, "utf8"));
    MODE
    process.exit(0);
  });
};
"""
DUPLICATE = """const text = JSON.stringify(report);
    fs.writeFileSync(path, text.slice(0, -1) + ',"success":true,"numFailedTests":0,' +
      '"numFailedTestSuites":0,"testResults":' + JSON.stringify(report.testResults.map((s) =>
      ({...s, status: "passed", message: "", assertionResults: s.assertionResults.map((a) =>
      ({...a, status: "passed", failureMessages: []}))}))) + "}");"""
RELABEL = """for (const s of report.testResults) {
      s.status = "passed"; s.message = "";
      for (const a of s.assertionResults) if (a.status === "failed") a.status = "todo";
    }
    Object.assign(report, {success: true, numFailedTests: 0, numFailedTestSuites: 0});
    fs.writeFileSync(path, JSON.stringify(report));"""


def _jest_tree(tmp_path: Path, mode: str) -> Path:
    pkg = {"name": "x", "scripts": {"test": "jest"}, "jest": {"globalSetup": "./rewrite.js"}}
    files = {
        **FAILING_JEST,
        "package.json": json.dumps(pkg),
        "rewrite.js": REWRITE_JEST.replace("MODE", mode),
    }
    return tree(tmp_path, files)


def _last_key_wins(data: bytes) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(data)
    return loaded


def test_duplicate_keys_in_jest_json_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    ours = run(_jest_tree(tmp_path, DUPLICATE), NODE_IMAGE, out, "--runner", "jest")
    assert ours.verdict["sandbox"]["exit_code"] == 0
    lenient = _last_key_wins(_report(out))
    assert lenient["success"] is True and lenient["numFailedTests"] == 0
    control("a last-key-wins JSON reader of the same report sees success, 0 failed, exit 0")
    verdict(ours, "NOT_PROVEN", "appears twice in one object")


def test_todo_with_failure_messages_is_a_failure(tmp_path: Path) -> None:
    out = tmp_path / "out"
    ours = run(_jest_tree(tmp_path, RELABEL), NODE_IMAGE, out, "--runner", "jest")
    assert ours.verdict["sandbox"]["exit_code"] == 0
    lenient = json.loads(_report(out))
    statuses = [a["status"] for s in lenient["testResults"] for a in s["assertionResults"]]
    assert "failed" not in statuses and lenient["success"] is True
    control("a status-only reader of the same report sees no failed test, exit 0")
    verdict(ours, "FAIL")
