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

from tests.git_helpers import commit, init_repo
from tests.hostile.helpers import RECORD, control
from tests.hostile.verdicts import (
    FAILING_JEST,
    FAILING_PYTEST,
    MARKER,
    NODE_IMAGE,
    PLAIN_PYTEST,
    counts,
    output,
    plain_pytest,
    run,
    tree,
    verdict,
)
from tests.integration.helpers import compare

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


_OK_FALSE = "def ok():\n    return False\n"
_TEST_HELPER = "import helper\n\ndef test_ok():\n    assert helper.ok()\n"
# A child interpreter started the way multiprocessing's spawn starts one (the parent's flags,
# but no pycache prefix) imports the helper: it must not read a cache of the tree either.
_TEST_SPAWNED = """import multiprocessing

def child():
    import helper, sys
    sys.exit(0 if helper.ok() else 3)

def test_ok():
    process = multiprocessing.get_context("spawn").Process(target=child)
    process.start()
    process.join(60)
    assert process.exitcode == 0
"""
# (the tree's text files, where the unchecked .pyc goes, the control's command)
PYCACHES = {
    # a module of the tree, imported by a test
    "module": (
        {"helper.py": _OK_FALSE, "test_helper.py": _TEST_HELPER},
        "__pycache__/helper.cpython-311.pyc",
        PLAIN_PYTEST,
    ),
    # the same module imported in a child interpreter that multiprocessing spawns
    "spawned-child": (
        {"helper.py": _OK_FALSE, "test_helper.py": _TEST_SPAWNED},
        "__pycache__/helper.cpython-311.pyc",
        PLAIN_PYTEST,
    ),
    # a src layout's package: src/ is on the path from the interpreter's start
    "src-layout": (
        {
            "pyproject.toml": '[project]\nname = "helper"\nversion = "1"\n',
            "src/helper/__init__.py": _OK_FALSE,
            "tests/test_helper.py": _TEST_HELPER,
        },
        "src/helper/__pycache__/__init__.cpython-311.pyc",
        f"PYTHONPATH=/work/src {PLAIN_PYTEST}",
    ),
}


@pytest.mark.parametrize("case", sorted(PYCACHES))
def test_tree_pycache_never_runs_instead_of_its_source(
    python_image: str, tmp_path: Path, case: str
) -> None:
    files, pyc_path, plain_command = PYCACHES[case]
    pyc = _unchecked_pyc("def ok():\n    return True\n", tmp_path / "helper.pyc")
    assert pyc[:4] == importlib.util.MAGIC_NUMBER  # the image runs 3.11 too: the same magic
    repo = tree(tmp_path, files, {pyc_path: pyc})
    plain = run(
        repo,
        python_image,
        tmp_path / "plain",
        "--command",
        plain_command,
        "--report-format",
        "junit",
    )
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


# --- compare: a cache the PR adds, read by a child interpreter a test starts ----------------

_HELPER_BUGGY = "def version():\n    return 1\n\n\ndef ok():\n    return False\n"
# the test's own process runs version(), a spawned child asks ok()
_TEST_SPAWNED_HELPER = _TEST_SPAWNED.replace(
    "def test_ok():\n", "def test_ok():\n    import helper\n\n    assert helper.version()\n"
)


def _compare_pair(tmp_path: Path, image: str, head_files: dict[str, str | bytes | None]) -> str:
    repo = init_repo(tmp_path / "repo")
    base = commit(repo, {"helper.py": _HELPER_BUGGY, "test_base.py": "def test_x():\n    pass\n"})
    head = commit(repo, head_files, "head")
    _code, result, _summary = compare(tmp_path, repo, base, head, image)
    return str(result.verdict)


def _checked_pyc_for(source: str, code: str, tmp_path: Path) -> bytes:
    """A checked hash-based .pyc (PEP 552) of ``code`` whose header claims ``source``'s hash:
    CPython checks the hash and runs ``code`` beside exactly that source, nowhere else."""
    src = tmp_path / "stand_in.py"
    src.write_text(code)
    pyc = tmp_path / "stand_in.pyc"
    mode = py_compile.PycInvalidationMode.CHECKED_HASH
    py_compile.compile(str(src), cfile=str(pyc), invalidation_mode=mode, doraise=True)
    data = pyc.read_bytes()
    return data[:8] + importlib.util.source_hash(source.encode()) + data[16:]


def test_compare_a_cache_the_pr_adds_proves_nothing(python_image: str, tmp_path: Path) -> None:
    """Head changes a line the test's own process runs (version()) and adds a cache of helper
    that says ok, valid beside head's helper.py only; its new test asks a spawned child. The
    PR's non-code files go to both sides, but on before the cache's hash does not match base's
    helper.py and the child compiles the source: before fails, head passes, and head's source
    fixes nothing. Positive control: the PR that really fixes the source is VERIFIED."""
    test = {"test_helper.py": _TEST_SPAWNED_HELPER}
    bumped = _HELPER_BUGGY.replace("return 1", "return 2")
    fixed = bumped.replace("return False", "return True")
    honest = _compare_pair(tmp_path / "honest", python_image, {"helper.py": fixed, **test})
    assert honest == "VERIFIED"
    control("the PR that fixes helper.ok() in its source: VERIFIED")
    pyc = _checked_pyc_for(bumped, fixed, tmp_path)
    forged = {"helper.py": bumped, "__pycache__/helper.cpython-311.pyc": pyc, **test}
    got = _compare_pair(tmp_path / "forged", python_image, forged)
    assert got != "VERIFIED"
    RECORD.append(("outcome", got))
