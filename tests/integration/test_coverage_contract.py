"""``--coverage``: a second returned file, end to end through real containers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sandbox_helpers import sandbox

BOTH = ("--report", "/work/rep.xml", "--coverage", "/work/cov.json")


def test_report_and_coverage_both_come_back(minimal_image: str, tmp_path: Path) -> None:
    cmd = "echo '<r/>' > /work/rep.xml; head -c 300000 /dev/zero | tr '\\0' c > /work/cov.json"
    run = sandbox(tmp_path, minimal_image, cmd, *BOTH, "--max-output", "10")
    assert (run.result["report"], run.result["coverage"]) == ("returned", "returned")
    assert (run.out / "report.txt").read_bytes() == b"<r/>\n"
    assert (run.out / "coverage.txt").read_bytes() == b"c" * 300000


def test_without_the_flag_there_is_no_coverage_file(minimal_image: str, tmp_path: Path) -> None:
    # the twin of the test above: the same command, coverage not asked for
    cmd = "echo '<r/>' > /work/rep.xml; echo data > /work/cov.json"
    run = sandbox(tmp_path, minimal_image, cmd, "--report", "/work/rep.xml")
    assert (run.result["report"], run.result["coverage"]) == ("returned", "not_requested")
    assert "coverage.txt" not in run.files


@pytest.mark.parametrize(
    ("cmd", "state"),
    [
        ("true", "missing"),
        ("mkdir /work/cov.json", "not_regular"),
        ("ln -s /etc/passwd /work/cov.json", "not_regular"),
        ("head -c 16777217 /dev/zero > /work/cov.json", "too_large"),  # 16 MiB + 1
    ],
)
def test_coverage_refusals(minimal_image: str, tmp_path: Path, cmd: str, state: str) -> None:
    run = sandbox(tmp_path, minimal_image, f"echo '<r/>' > /work/rep.xml; {cmd}", *BOTH)
    assert (run.result["status"], run.result["report"]) == ("COMPLETED", "returned")
    assert run.result["coverage"] == state
    assert "coverage.txt" not in run.files


def test_stale_coverage_from_the_repo_is_not_returned(minimal_image: str, tmp_path: Path) -> None:
    run = sandbox(tmp_path, minimal_image, "true", *BOTH, files={"cov.json": "{}"})
    assert run.result["coverage"] == "stale"
    assert "coverage.txt" not in run.files


def test_the_same_path_twice_is_refused(minimal_image: str, tmp_path: Path) -> None:
    run = sandbox(tmp_path, minimal_image, "true", "--report", "/work/a", "--coverage", "/work/a")
    assert run.code == 2
