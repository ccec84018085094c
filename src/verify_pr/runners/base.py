"""The Runner protocol, detection evidence, and the report-path rule shared by all runners."""

from __future__ import annotations

import re
import secrets
import shlex
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from verify_pr.errors import InputRefused
from verify_pr.models.report import ReportFormat, TestReport
from verify_pr.reports._common import ReportSource

REPORT_DIR = "/work"
REPORT_PATH_MAX_CHARS = 200
_PATH_CHARS = re.compile(r"/work/[A-Za-z0-9._/-]+")
_RANDOM_PART = re.compile(r"[0-9a-f]{16,}")


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
    runner: str
    evidence: Evidence
    source: str  # what a maintainer can look at, e.g. "pytest.ini"


class Runner(Protocol):
    """One test runner. Every method is pure apart from reading files in ``tree``."""

    name: str
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


def new_report_path(suffix: str) -> str:
    """A fresh random report path under /work (128 random bits in the name)."""
    if not re.fullmatch(r"\.[a-z]{1,8}", suffix):
        raise InputRefused(f"bad report suffix {suffix!r}")
    return f"{REPORT_DIR}/vpr-report-{secrets.token_hex(16)}{suffix}"


def validate_report_path(path: str) -> str:
    """Refuse a report path that the runner could read differently than we do.

    pytest runs ``--junitxml`` through expandvars/expanduser, so ``$`` and ``~`` are refused;
    the rest is a plain absolute path under /work with a random name and a small charset, so
    it needs no quoting and cannot turn into a second shell word.
    """
    if not isinstance(path, str) or not path:
        raise InputRefused("report path is empty")
    for char, why in (("$", "pytest expands variables"), ("~", "pytest expands the home dir")):
        if char in path:
            raise InputRefused(f"report path contains {char!r} ({why}): {path[:80]!r}")
    if len(path) > REPORT_PATH_MAX_CHARS:
        raise InputRefused(f"report path is over {REPORT_PATH_MAX_CHARS} characters")
    if not _PATH_CHARS.fullmatch(path):
        raise InputRefused(
            f"report path must be absolute under {REPORT_DIR}/ and use only "
            f"[A-Za-z0-9._/-]: {path[:80]!r}"
        )
    parts = path.split("/")[2:]
    if any(part in ("", ".", "..") for part in parts):
        raise InputRefused(f"report path is not normalised: {path[:80]!r}")
    if not _RANDOM_PART.search(parts[-1]):
        raise InputRefused(
            "report file name must carry a random token (16+ hex digits), "
            "so a PR cannot pre-plant the file"
        )
    return path


def shell_join(*words: str) -> str:
    return " ".join(shlex.quote(word) for word in words)
