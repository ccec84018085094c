"""Every entry point's exit codes, one ``IntEnum`` each; one number means one thing everywhere.

"Refused", "blocked", "the check failed" and "crashed" never share a code. A crash (an error
the code did not expect, or ``errors.Crashed``) says nothing about the PR, like BLOCKED, but is
a bug of verify-pr, so it has a code of its own everywhere: 5. 0 is each entry point's success
(for compare: VERIFIED or NOTHING TO PROVE), 1 FAIL, 2 refused, 3 BLOCKED, 4 NOT PROVEN, 6
(publish only) no check could be posted, 7 cancelled: SIGINT or SIGTERM stopped the run, its
sandboxes and temporary files are removed and there is no verdict (``sandbox/cancel.py``).

The verify step (``python -m verify_pr.action``) exits 0 once a verdict is written, whatever
it is (the action's last step turns it into the job's result), BLOCKED when the test image
could not be built, and crashed, with its ``status`` output ``crashed``, when the verifier
ended without a verdict. The publish step (``python -m verify_pr.publish``) exits 0 once a
check is posted, whatever it says (a refused or untrusted artifact is a posted NOT TRUSTED
check). The exit-code tables of docs/contract.md and docs/action.md are read and held to these enums
by tests/unit/test_exit_codes.py; ``ENTRY_POINTS`` names their columns.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Mapping
from enum import IntEnum
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, TextIO

from verify_pr.errors import Cancelled, Category, VerifyPrError

if TYPE_CHECKING:  # imported when a table is first asked for: the sandbox CLI stays light
    from verify_pr.models.compare import CompareVerdict
    from verify_pr.models.verdict import Verdict


class SandboxExit(IntEnum):
    """verify-pr-sandbox: the contract's command line."""

    RAN = 0
    REFUSED = 2
    BLOCKED = 3
    CRASHED = 5


class RunExit(IntEnum):
    """verify-pr run: the verdict's code (a member per ``Verdict``, by name), or no verdict."""

    PASS = 0
    FAIL = 1
    REFUSED = 2
    BLOCKED = 3
    NOT_PROVEN = 4
    CRASHED = 5
    CANCELLED = 7


class CompareExit(IntEnum):
    """verify-pr compare: the verdict's code (a member per ``CompareVerdict``), or none.

    NOTHING_TO_PROVE is an alias of VERIFIED's 0: a clean comparison of a PR that fixes nothing
    is no failure, so it must not fail a script that runs compare; which of the two it was is
    in verify-pr-result.json (the only code two verdicts share)."""

    VERIFIED = 0
    NOTHING_TO_PROVE = 0
    REFUSED = 2
    BLOCKED = 3
    NOT_PROVEN = 4
    CRASHED = 5
    CANCELLED = 7


class StepExit(IntEnum):
    """The action's verify step (``python -m verify_pr.action``); 0 is a verdict written (for
    ``check-pull`` and ``build-image``: done)."""

    OK = 0
    REFUSED = 2
    BLOCKED = 3
    CRASHED = 5
    CANCELLED = 7


class PublishExit(IntEnum):
    """The publish step (``python -m verify_pr.publish``)."""

    POSTED = 0
    REFUSED = 2
    CRASHED = 5
    NOT_POSTED = 6


ENTRY_POINTS: Mapping[str, type[IntEnum]] = {
    "verify-pr-sandbox": SandboxExit,
    "verify-pr run": RunExit,
    "verify-pr compare": CompareExit,
    "the verify step": StepExit,
    "the publish step": PublishExit,
}


def category_codes(enum: type[IntEnum]) -> Mapping[Category, IntEnum]:
    """An entry point's code for each error category it has a member for, by name (REFUSED,
    BLOCKED, CRASHED, NOT_POSTED, CANCELLED): never a second hand-written table."""
    members = enum.__members__
    return MappingProxyType({c: members[c.name] for c in Category if c.name in members})


# What each entry point's errors exit with; a category an entry point has no code for is a bug
# there (``run_entry`` says crashed).
SANDBOX_CODES = category_codes(SandboxExit)
VERIFY_CODES = category_codes(RunExit)  # run's and compare's: the same numbers
STEP_CODES = category_codes(StepExit)
PUBLISH_CODES = category_codes(PublishExit)
Say = Callable[[Category, BaseException], None]


def say_on_stderr(program: str) -> Say:
    """``program: refused: why`` on stderr; a crash with its traceback (``report_crash``)."""

    def say(category: Category, exc: BaseException) -> None:
        if category is Category.CRASHED:
            report_crash(program, exc)
        else:
            print(f"{program}: {category}: {diagnostics(exc)}", file=sys.stderr)

    return say


def diagnostics(exc: BaseException) -> str:
    if isinstance(exc, VerifyPrError | Cancelled):
        return exc.diagnostics()
    return f"{type(exc).__name__}: {exc}"


def category_of(exc: BaseException, codes: Mapping[Category, IntEnum]) -> Category:
    """The category ``exc`` declares (any other exception: crashed), or crashed when the entry
    point has no code for it."""
    category = exc.category if isinstance(exc, VerifyPrError | Cancelled) else Category.CRASHED
    return category if category in codes else Category.CRASHED


def run_entry(
    program: str, fn: Callable[[], int], codes: Mapping[Category, IntEnum], say: Say | None = None
) -> int:
    """Every entry point's one error mapping: ``fn``'s code, or the code of the category of
    what it raised (``errors``), said once by ``say`` (default: :func:`say_on_stderr`)."""
    try:
        return fn()
    except (Exception, Cancelled) as exc:  # never KeyboardInterrupt or SystemExit
        category = category_of(exc, codes)
        (say or say_on_stderr(program))(category, exc)
        return int(codes[category])


# The verdicts' codes, and their inverses (what a caller reads back from a code), derived from
# the enums by member name: never a second hand-written table.


@cache
def run_exit_codes() -> Mapping[Verdict, RunExit]:
    """Each ``Verdict``'s exit code in verify-pr run."""
    from verify_pr.models.verdict import Verdict

    return MappingProxyType({verdict: RunExit[verdict.name] for verdict in Verdict})


@cache
def compare_exit_codes() -> Mapping[CompareVerdict, CompareExit]:
    """Each ``CompareVerdict``'s exit code in verify-pr compare."""
    from verify_pr.models.compare import CompareVerdict

    return MappingProxyType({verdict: CompareExit[verdict.name] for verdict in CompareVerdict})


@cache
def run_verdicts() -> Mapping[int, Verdict]:
    """The verdict a verify-pr run exit code stands for; no entry: the code is no verdict's."""
    return MappingProxyType({code: verdict for verdict, code in run_exit_codes().items()})


@cache
def compare_verdicts() -> Mapping[int, frozenset[CompareVerdict]]:
    """The verdicts a verify-pr compare exit code stands for (0: VERIFIED or NOTHING TO PROVE;
    every other code one verdict); no entry: the code is no verdict's."""
    found: dict[int, set[CompareVerdict]] = {}
    for verdict, code in compare_exit_codes().items():
        found.setdefault(code, set()).add(verdict)
    return MappingProxyType({code: frozenset(verdicts) for code, verdicts in found.items()})


def report_crash(program: str, exc: BaseException, stream: TextIO | None = None) -> int:
    """Say that ``program`` crashed (with the traceback, for a bug report); the crash code,
    which is the same number in every entry point."""
    out = stream or sys.stderr
    print(
        f"{program}: crashed (a bug in verify-pr, not a verdict on the PR): "
        f"{type(exc).__name__}: {exc}",
        file=out,
    )
    traceback.print_exception(exc, file=out)
    return RunExit.CRASHED
