"""The one error root of verify-pr. Each class declares its :class:`Category`, which every entry
point maps to its own exit code in one place (``exit_codes.run_entry``):

    VerifyPrError                 every error this package raises on purpose    category
    ├── InputRefused              bad input from the caller                      refused (2)
    ├── SandboxBlocked            the engine could not run the check             blocked (3)
    ├── Crashed                   verify-pr failed without a verdict (ours)      crashed (5)
    ├── ReportError               a test report could not be read or trusted     refused (2)
    ├── GitError                  hardened git could not export a tree           refused (2)
    ├── GitHubApiError            the REST API refused or failed                 not posted (6)
    └── ConfigError               the action or CLI settings are inconsistent    refused (2)

    Cancelled (a BaseException)   SIGINT or SIGTERM cancelled the run            cancelled (7)

The root's own category is refused: what it says is that the input could not be used. Any
other exception is crashed. Only the entrypoints catch these and map them to exit codes;
third-party errors are wrapped in the adapter that calls them (``raise ... from exc``) so
none of their types leave it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar


class Category(StrEnum):
    """What an error means to the caller; each entry point gives each its exit code."""

    REFUSED = "refused"  # the input, settings or event cannot be used: nothing ran
    BLOCKED = "blocked"  # the sandbox could not run the check: says nothing about the PR
    CRASHED = "crashed"  # a bug of verify-pr, or a broken install: never a verdict
    NOT_POSTED = "not posted"  # the GitHub API failed: no check run exists
    CANCELLED = "cancelled"  # SIGINT or SIGTERM: the run was stopped and swept clean


class VerifyPrError(Exception):
    """Root of every deliberate error; ``diagnostics()`` says what the user can do."""

    category: ClassVar[Category] = Category.REFUSED
    hint: str = ""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        if hint:
            self.hint = hint

    def diagnostics(self) -> str:
        """One line for the user: what went wrong, and what to do about it when we know."""
        return f"{self.message} ({self.hint})" if self.hint else self.message


class InputRefused(VerifyPrError):
    """The caller's input is refused before anything runs."""

    category = Category.REFUSED


class SandboxBlocked(VerifyPrError):
    """The engine could not run the check; says nothing about the PR."""

    category = Category.BLOCKED


class Crashed(VerifyPrError):
    """verify-pr itself failed without a verdict: a bug of verify-pr or a broken install,
    never a verdict on the PR (the crash code of every entry point, ``exit_codes``)."""

    category = Category.CRASHED


class ReportError(VerifyPrError):
    """A report is missing, malformed, over a cap or otherwise not trustworthy."""

    category = Category.REFUSED


class GitError(VerifyPrError):
    """Hardened git refused or failed."""

    category = Category.REFUSED


class GitHubApiError(VerifyPrError):
    """The GitHub REST API refused or failed."""

    category = Category.NOT_POSTED


class ConfigError(VerifyPrError):
    """Settings are missing or inconsistent."""

    category = Category.REFUSED


class Cancelled(BaseException):
    """A signal (SIGINT, SIGTERM) cancelled the run: no verdict, exit CANCELLED (7).

    Not a ``VerifyPrError`` and not an ``Exception``, like ``KeyboardInterrupt`` and asyncio's
    ``CancelledError``: a handler that forgives an error (``except VerifyPrError`` around a
    git call that only costs the coverage figures, ``except Exception`` around a crash report)
    must not swallow a cancel and carry on running sandboxes. Only the entry points catch it.
    """

    category: ClassVar[Category] = Category.CANCELLED

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def diagnostics(self) -> str:
        return self.message
