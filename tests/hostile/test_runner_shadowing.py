"""Issue 12, family 1: a tree that stands in for the runner, or part of it, by name.

Each tree holds one failing test and a stand-in that forges a passing report and exits 0.
Positive control: under the plain ``python3 -m pytest`` (working directory first on sys.path,
user site-packages under HOME=/work on, the tree's __pycache__ read) the forgery wins and the
verdict is PASS. Under verify-pr's own command the stand-in never runs and the real failure
shows. A node_modules/jest cannot be kept out (jest itself hands over to it): the tree then
never gets a PASS.
"""

from __future__ import annotations

import importlib.util
import json
import py_compile
from pathlib import Path

import pytest

from tests.hostile.helpers import control
from tests.hostile.verdicts import (
    FAILING_JEST,
    FAILING_PYTEST,
    MARKER,
    NODE_IMAGE,
    counts,
    output,
    plain_pytest,
    run,
    tree,
    verdict,
)

_PASSING_JUNIT = (
    '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" '
    'failures="0" skipped="0" tests="1" time="0.01"><testcase classname="test_fails" '
    'name="test_fails" file="test_fails.py" line="0" time="0.001" /></testsuite></testsuites>'
)
# Writes a passing report at the path on pytest's command line, then exits 0.
FORGE = f"""import os, sys
def forge():
    for arg in sys.argv:
        if arg.startswith("--junitxml="):
            with open(arg.split("=", 1)[1], "w") as f:
                f.write({_PASSING_JUNIT!r})
    print("{MARKER}", flush=True)
    os._exit(0)
"""
USER_SITE = ".local/lib/python3.11/site-packages"

SHADOWS = {
    # a package pytest imports at startup (named in the old list)
    "pluggy-package": {"pluggy/__init__.py": FORGE + "forge()\n"},
    # a standard library module pytest imports at startup (in no list)
    "stdlib-argparse": {"argparse.py": FORGE + "forge()\n"},
    # HOME=/work makes the tree's .local the user site-packages: a .pth line runs at startup
    "user-site-pth": {
        f"{USER_SITE}/vpr_forge.py": FORGE + "import atexit\natexit.register(forge)\n",
        f"{USER_SITE}/vpr.pth": "import vpr_forge\n",
    },
}


@pytest.mark.parametrize("case", sorted(SHADOWS))
def test_tree_cannot_shadow_the_runner_by_name(
    python_image: str, tmp_path: Path, case: str
) -> None:
    repo = tree(tmp_path, {**FAILING_PYTEST, **SHADOWS[case]})
    plain = plain_pytest(repo, python_image, tmp_path / "plain")
    assert plain.verdict["verdict"] == "PASS", plain.verdict["reasons"]
    assert MARKER in output(plain, tmp_path / "plain")
    control("plain python3 -m pytest runs the stand-in: forged PASS")
    ours = run(repo, python_image, tmp_path / "ours", "--runner", "pytest")
    assert MARKER not in output(ours, tmp_path / "ours")
    assert counts(ours) == (1, 0, 1, 0, 0)
    verdict(ours, "FAIL")


def _unchecked_pyc(source: str, target: Path) -> bytes:
    """A hash-based .pyc that CPython never checks against its source (PEP 552)."""
    src = target.with_suffix(".src.py")
    src.write_text(source)
    py_compile.compile(
        str(src),
        cfile=str(target),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
        doraise=True,
    )
    return target.read_bytes()


def test_tree_pycache_never_runs_instead_of_its_source(python_image: str, tmp_path: Path) -> None:
    magic = importlib.util.MAGIC_NUMBER
    pyc = _unchecked_pyc("def ok():\n    return True\n", tmp_path / "helper.pyc")
    assert pyc[:4] == magic  # the image runs 3.11 too: the same magic number
    repo = tree(
        tmp_path,
        {
            "helper.py": "def ok():\n    return False\n",
            "test_helper.py": "import helper\n\ndef test_ok():\n    assert helper.ok()\n",
        },
        {"__pycache__/helper.cpython-311.pyc": pyc},
    )
    plain = plain_pytest(repo, python_image, tmp_path / "plain")
    assert plain.verdict["verdict"] == "PASS", plain.verdict["reasons"]
    control("plain python3 -m pytest loads the unchecked .pyc: PASS against a failing source")
    ours = run(repo, python_image, tmp_path / "ours", "--runner", "pytest")
    assert counts(ours) == (1, 0, 1, 0, 0)
    verdict(ours, "FAIL")


def test_sourceless_pyc_is_a_runner_part_and_never_passes(
    python_image: str, tmp_path: Path
) -> None:
    """A .pyc beside no source is loaded by any CPython (SourcelessFileLoader): it cannot be
    kept out, so it is named and the verdict cannot be PASS."""
    pyc = _unchecked_pyc("def ok():\n    return True\n", tmp_path / "helper.pyc")
    repo = tree(
        tmp_path,
        {"test_helper.py": "import helper\n\ndef test_ok():\n    assert helper.ok()\n"},
        {"helper.pyc": pyc},
    )
    ours = run(repo, python_image, tmp_path / "ours", "--runner", "pytest")
    assert counts(ours) == (1, 1, 0, 0, 0)
    control("the compiled helper ran: its test passed (1 passed, exit 0)")
    verdict(ours, "NOT_PROVEN", "helper.pyc: compiled Python module")


_PASSING_JEST = {
    "success": True,
    "numTotalTests": 1,
    "numFailedTests": 0,
    "numFailedTestSuites": 0,
    "numRuntimeErrorTestSuites": 0,
    "wasInterrupted": False,
    "testResults": [
        {
            "name": "/work/fails.test.js",
            "status": "passed",
            "message": "",
            "assertionResults": [
                {"ancestorTitles": [], "title": "fails", "status": "passed", "failureMessages": []}
            ],
        }
    ],
}
FAKE_JEST = f"""const fs = require("fs");
const out = process.argv.find((a) => a.startsWith("--outputFile="));
fs.writeFileSync(out.slice("--outputFile=".length), JSON.stringify({json.dumps(_PASSING_JEST)}));
console.log("{MARKER}");
process.exit(0);
"""


def test_node_modules_jest_in_the_tree_never_passes(tmp_path: Path) -> None:
    repo = tree(
        tmp_path,
        {
            **FAILING_JEST,
            "package.json": json.dumps({"name": "x", "scripts": {"test": "jest"}}),
            "node_modules/jest/package.json": json.dumps(
                {"name": "jest", "version": "29.7.0", "bin": {"jest": "bin/jest.js"}}
            ),
            "node_modules/jest/bin/jest.js": FAKE_JEST,
        },
    )
    ours = run(repo, NODE_IMAGE, tmp_path / "ours", "--runner", "jest")
    assert MARKER in output(ours, tmp_path / "ours")
    assert counts(ours) == (1, 1, 0, 0, 0)
    control("the image's jest hands over to the tree's node_modules/jest: a passing report, exit 0")
    verdict(ours, "NOT_PROVEN", "node_modules/jest: the image's jest hands the whole run over")
