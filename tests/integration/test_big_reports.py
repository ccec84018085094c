"""Real suites' report sizes: a generated 62,000-test pytest suite (the size of a widely used
library's) runs in the python image through ``verify-pr run`` and is PASS when it passes,
with every test counted. The report (several MiB of JUnit) streams through the sandbox and the
parser; the output cap stays separate. (Which testcases verdict.json lists when there are more
than it holds is a unit test: tests/unit/verify/runs/test_listed_testcases.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.helpers import verify_pr

PYTHON_IMAGE = "verify-pr-python:local"
FILES = 62
PER_FILE = 1000  # 62,000 tests: over the old 50,000-element cap and the old 1 MiB report


def big_suite(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n")
    for n in range(FILES):
        (root / f"test_mod{n:03d}.py").write_text(
            "import pytest\n\n\n"
            f"@pytest.mark.parametrize('i', range({PER_FILE}))\n"
            f"def test_value_{n}(i):\n    assert i * 2 == i + i\n"
        )
    return root


@pytest.mark.slow
def test_a_62000_test_suite_is_pass_when_it_passes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = verify_pr(
        big_suite(tmp_path / "repo"), PYTHON_IMAGE, out, "--timeout", "900", timeout=1200
    )
    verdict = run.verdict
    assert (run.code, verdict.get("verdict")) == (0, "PASS"), (run.stderr, verdict.get("reasons"))
    assert verdict["totals"] == {
        "total": 62_000,
        "passed": 62_000,
        "failed": 0,
        "error": 0,
        "skipped": 0,
        "expected_failure": 0,
    }
    report = out / "report.txt"
    assert report.stat().st_size > 1024 * 1024  # over the old cap: it came back whole
    # verdict.json lists a bounded number of testcases; the totals count all of them.
    assert len(verdict["testcases"]) == 10_000
    result = json.loads((out / "result.json").read_text())
    assert result["report"] == "returned"
