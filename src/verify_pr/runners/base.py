"""The Runner protocol, detection evidence, and the report-path rule shared by all runners."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from verify_pr.contract import RunnerName, check_report_path
from verify_pr.models.report import ReportFormat, TestReport
from verify_pr.reports._common import ReportSource


class Evidence(StrEnum):
    """Why a runner was detected, strongest first (NOTES §3 order)."""

    SCRIPT = "package.json scripts.test"
    CONFIG = "config file"
    DEPENDENCY = "dependency"
    TEST_FILES = "test files"  # a bare pytest repo: test_*.py files and nothing else

    @property
    def rank(self) -> int:
        return list(Evidence).index(self)


@dataclass(frozen=True)
class Detection:
    runner: RunnerName
    evidence: Evidence
    source: str  # what a maintainer can look at, e.g. "pytest.ini"


class Runner(Protocol):
    """One test runner. Every method is pure apart from reading files in ``tree``."""

    name: RunnerName
    report_format: ReportFormat

    def detect(self, tree: Path) -> Detection | None:
        """Strongest evidence that ``tree`` uses this runner; reads files, executes nothing."""
        ...

    def command(self, report_path: str) -> str:
        """The exact shell command that runs the suite and writes the report there."""
        ...

    def parse(self, report_bytes: ReportSource) -> TestReport:
        """Strictly parse the report; ReportError on anything we cannot vouch for."""
        ...

    def tamper_signals(self, tree: Path) -> list[str]:
        """Repo config that can redirect, disable or fake the report or the exit code."""
        ...


def validate_report_path(path: str) -> str:
    """A runner's report path: the contract's grammar with a random name (see ``contract``)."""
    return check_report_path(path, random=True)
