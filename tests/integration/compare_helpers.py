"""The one-bug python repository that tests/integration/test_compare.py and
test_compare_closure.py both compare, and their `verify-pr compare` call (with the image fixed;
tests/integration/helpers.py has the one that names base and head)."""

from __future__ import annotations

from pathlib import Path

from verify_pr.models.compare import CompareResult
from verify_pr.verify import cli

IMAGE = "verify-pr-python:local"
BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
TESTS = (
    "from calc import add, mul\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_mul():\n    assert mul(2, 3) == 6\n"
)
FORCE_PASS_CONFTEST = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
"""


def compare(tmp_path: Path, repo: Path, *args: str) -> tuple[int, CompareResult, str]:
    out = tmp_path / "out"
    code = cli.main(
        [
            "compare",
            "--git",
            str(repo),
            "--image",
            IMAGE,
            "--out",
            str(out),
            "--timeout",
            "60",
            *list(args),
        ]
    )
    result = CompareResult.model_validate_json((out / "verify-pr-result.json").read_text())
    summary = (out / "compare_summary.md").read_text()
    return code, result, summary
