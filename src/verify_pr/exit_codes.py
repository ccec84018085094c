"""One table of exit codes for every entry point; a crash is never a verdict.

"Refused", "blocked", "the check failed" and "crashed" never share a code. A crash (an error
the code did not expect) says nothing about the PR, like BLOCKED, but is a bug of verify-pr,
so it has a code of its own everywhere.

| entry point       | 0        | 1    | 2       | 3                 | 4          | 5       |
|-------------------|----------|------|---------|-------------------|------------|---------|
| verify-pr-sandbox | ran      |      | refused | BLOCKED           |            | crashed |
| verify-pr run     | PASS     | FAIL | refused | BLOCKED           | NOT PROVEN | crashed |
| verify-pr compare | VERIFIED |      | refused | BLOCKED           | NOT PROVEN | crashed |
| the verify step   | verdict  |      | refused | crashed, or none  |            |         |

The verify step (``python -m verify_pr.action``) sets its ``status`` output to ``refused`` or
``crashed``. The publish step (``python -m verify_pr.publish``) exits 0 once a check is posted,
whatever it says (a refused or untrusted artifact is a posted NOT TRUSTED check, never a
crash), 2 for refused settings, 5 when no check could be posted, 6 for an internal error.
"""

from __future__ import annotations

import sys
import traceback
from typing import TextIO

SANDBOX_RAN = 0
REFUSED = 2
BLOCKED = 3
CRASHED = 5


def report_crash(program: str, exc: BaseException, stream: TextIO | None = None) -> int:
    """Say that ``program`` crashed (with the traceback, for a bug report); the crash code."""
    out = stream or sys.stderr
    print(
        f"{program}: crashed (a bug in verify-pr, not a verdict on the PR): "
        f"{type(exc).__name__}: {exc}",
        file=out,
    )
    traceback.print_exception(exc, file=out)
    return CRASHED
