"""Compare's pytest runs add ``--tb=native`` (``PytestRunner.compare_args``): the report's
results and messages must be what pytest's default style gives. Real pytest in the python
image, one run per style of a file with every kind of failure the verdict reads; the control
is that the style took effect (the failures' bodies are Python's own tracebacks)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from tests.integration.helpers import verify_pr
from tests.sandbox_helpers import make_repo
from verify_pr.runners.pytest.runner import PytestRunner

PYTHON_IMAGE = "verify-pr-python:local"
KINDS = """import pytest


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def helper(x):
    assert x == 2, "x was not two"


def test_assert():
    assert [1, 2] == [1, 3]


def test_nested():
    helper(1)


def test_raise():
    raise KeyError("k")


def test_missing():
    import module_that_is_not_there  # noqa: F401


def test_fixture(broken):
    pass


@pytest.mark.xfail(strict=True)
def test_xpass_strict():
    pass


@pytest.mark.xfail
def test_xfail():
    assert False


def test_chained():
    try:
        raise ValueError("a")
    except ValueError:
        raise TypeError("b")


def test_passes():
    pass
"""
# the runner's own command (a flat tree's), its report path the placeholder --command fills
_REPORT = "/work/r0123456789abcdef.xml"
COMMAND = PytestRunner().command(_REPORT).replace(_REPORT, "{report}")


def _run(tmp_path: Path, name: str, extra: str) -> bytes:
    repo = make_repo(tmp_path / name, {"test_kinds.py": KINDS})
    (repo / "test_broken_import.py").write_text("import module_that_is_not_there\n")
    out = tmp_path / name / "out"
    run = verify_pr(
        repo, PYTHON_IMAGE, out, "--command", COMMAND + extra, "--report-format", "junit"
    )
    assert run.verdict, run.stderr
    return (out / "report.txt").read_bytes()


def test_native_tracebacks_leave_the_results_and_messages_as_they_were(tmp_path: Path) -> None:
    assert "--tb=native" in PytestRunner.compare_args
    default = _run(tmp_path, "default", " --continue-on-collection-errors")
    native = _run(tmp_path, "native", " " + " ".join(PytestRunner.compare_args))
    parse = PytestRunner().parse
    cases = {c.id: (c.status, c.message) for c in parse(default).testcases}
    assert {c.id: (c.status, c.message) for c in parse(native).testcases} == cases
    statuses = {status for status, _ in cases.values()}
    assert len(cases) >= 10 and len(statuses) >= 4  # failed, error, passed, xfail/skipped
    # the control: the style took effect (Python's traceback in the bodies, not pytest's)
    bodies = {
        name: "".join(e.text or "" for e in ET.fromstring(report).iter("failure"))  # noqa: S314
        for name, report in (("default", default), ("native", native))
    }
    assert "Traceback (most recent call last)" in bodies["native"]
    assert "Traceback (most recent call last)" not in bodies["default"]
