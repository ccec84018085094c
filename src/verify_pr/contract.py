"""The names, defaults and bounds every layer shares, each defined once.

Neutral on purpose: it imports only the standard library and ``verify_pr.errors``, so the
sandbox, the runners, the verifier, the action and the token-holding publish side may all
import it (tests/unit/test_layers.py). Literals outside Python (action.yml's ``timeout`` and
``flake-runs`` defaults and bounds, wrapper.sh's report cap) are tested equal to these.
"""

from __future__ import annotations

import re
import secrets
from enum import StrEnum
from typing import Final

from verify_pr.errors import InputRefused

# The suite's wall timeout in seconds: both CLIs, the action's input and the sandbox model.
DEFAULT_TIMEOUT_S: Final = 600
MAX_TIMEOUT_S: Final = 3600
TIMEOUT_RANGE: Final = (1, MAX_TIMEOUT_S)

# compare: each FAIL_TO_PASS test is re-run by id this many times per side (CLI and action).
DEFAULT_FLAKE_RUNS: Final = 3
MAX_FLAKE_RUNS: Final = 20


class RunnerName(StrEnum):
    """The test runners verify-pr knows, in detection's tie-break order."""

    PYTEST = "pytest"
    JEST = "jest"
    VITEST = "vitest"
    BUN = "bun"
    GO = "go"


AUTO: Final = "auto"
RUNNER_CHOICES: Final[tuple[str, ...]] = (AUTO, *(name.value for name in RunnerName))
"""What ``--runner`` and the action's ``runner`` input accept: detection, or one runner (plain
strings, so argparse's and pydantic's messages quote them as typed)."""

# the runner a verdict names for the caller's own command, which no runner stands behind
CUSTOM_RUNNER: Final = "custom"


class CustomFormat(StrEnum):
    """The report formats a project's own ``--command`` / ``command`` may write."""

    JUNIT = "junit"
    JEST_JSON = "jest-json"


CUSTOM_FORMAT_CHOICES: Final[tuple[str, ...]] = tuple(fmt.value for fmt in CustomFormat)

# The sandbox's copy of the repo: the working directory, HOME, and where reports are written.
WORK_DIR: Final = "/work"

# The largest report the sandbox returns (wrapper.sh holds the same number as a literal, tested
# equal). A 250,000-case JUnit report from pytest is about 45 MiB.
MAX_REPORT_BYTES: Final = 64 * 1024 * 1024
# The largest coverage data the sandbox returns with ``--coverage`` (wrapper.sh: a literal,
# tested equal). Line sets of a PR's changed files are far smaller.
MAX_COVERAGE_BYTES: Final = 16 * 1024 * 1024

# What the verifier writes into OUT (the sandbox CLI writes the first three), and the compare
# mode's top-level files. The publish side reads the same names from the artifact.
RESULT_FILE: Final = "result.json"
OUTPUT_FILE: Final = "output.txt"
REPORT_FILE: Final = "report.txt"
COVERAGE_FILE: Final = "coverage.txt"
VERDICT_FILE: Final = "verdict.json"
SANDBOX_OUT_FILES: Final = frozenset({RESULT_FILE, OUTPUT_FILE, REPORT_FILE})
# the sandbox CLI's OUT may also hold coverage.txt (--coverage); verify-pr's own OUTs never do
SANDBOX_CLI_OUT_FILES: Final = SANDBOX_OUT_FILES | {COVERAGE_FILE}
RUN_OUT_FILES: Final = SANDBOX_OUT_FILES | {VERDICT_FILE}
COMPARE_RESULT_FILE: Final = "verify-pr-result.json"
COMPARE_SUMMARY_FILE: Final = "compare_summary.md"

# The report path, one grammar: /work/NAME, NAME one plain name that needs no shell quoting and
# cannot be a second shell word, a path, or the wrapper's own dot folder. pytest runs
# --junitxml through expandvars/expanduser, so the charset keeps out ``$`` and ``~``.
REPORT_NAME_MAX_CHARS: Final = 128
_REPORT_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{REPORT_NAME_MAX_CHARS - 1}}}")
_RANDOM_TOKEN = re.compile(r"[0-9a-f]{16,}")
_REPORT_SUFFIX = re.compile(r"\.[a-z]{1,8}")
_EXPANDED = (("$", "pytest expands variables"), ("~", "pytest expands the home dir"))


def new_report_path(suffix: str) -> str:
    """A fresh report path: ``/work/vpr-report-<128 random bits in hex><suffix>``."""
    if not isinstance(suffix, str) or not _REPORT_SUFFIX.fullmatch(suffix):
        raise InputRefused(f"bad report suffix {suffix!r}")
    return f"{WORK_DIR}/vpr-report-{secrets.token_hex(16)}{suffix}"


def check_report_path(path: str, *, random: bool, what: str = "report path") -> str:
    """``path`` if it fits the grammar, else ``InputRefused`` saying why.

    ``random``: the name must also carry a random token (16+ hex digits), so a PR cannot
    pre-plant the file; runners' commands require it, the sandbox CLI's ``--report`` does not.
    """
    if not isinstance(path, str) or not path:
        raise InputRefused(f"{what} is empty")
    for char, why in _EXPANDED:
        if char in path:
            raise InputRefused(f"{what} contains {char!r} ({why}): {path[:80]!r}")
    prefix = f"{WORK_DIR}/"
    name = path[len(prefix) :] if path.startswith(prefix) else ""
    if not _REPORT_NAME.fullmatch(name):
        raise InputRefused(
            f"{what} {path[:80]!r} must be {WORK_DIR}/NAME with NAME of [A-Za-z0-9._-], "
            f"at most {REPORT_NAME_MAX_CHARS} characters, not starting with a dot"
        )
    if random and not _RANDOM_TOKEN.search(name):
        raise InputRefused(
            f"{what}'s file name must carry a random token (16+ hex digits), "
            "so a PR cannot pre-plant the file"
        )
    return path
