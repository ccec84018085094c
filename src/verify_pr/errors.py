"""The one error root of verify-pr.

    VerifyPrError                 every error this package raises on purpose
    ├── InputRefused              bad input from the caller (exit 2)
    ├── SandboxBlocked            the engine could not run the check (exit 3, never a verdict)
    ├── Crashed                   verify-pr failed without a verdict (exit 5, a bug of ours)
    ├── ReportError               a test report could not be read or trusted
    ├── GitError                  hardened git could not export a tree
    ├── GitHubApiError            the REST API refused or failed
    └── ConfigError               the action or CLI settings are inconsistent

    Cancelled (a BaseException)   SIGINT or SIGTERM cancelled the run (exit 7, no verdict)

Only the entrypoints catch these and map them to exit codes; third-party errors are wrapped
in the adapter that calls them (``raise ... from exc``) so none of their types leave it.
"""

from __future__ import annotations


class VerifyPrError(Exception):
    """Root of every deliberate error; ``diagnostics()`` says what the user can do."""

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


class SandboxBlocked(VerifyPrError):
    """The engine could not run the check; says nothing about the PR."""


class Crashed(VerifyPrError):
    """verify-pr itself failed without a verdict: a bug of verify-pr or a broken install,
    never a verdict on the PR (the crash code of every entry point, ``exit_codes``)."""


class ReportError(VerifyPrError):
    """A report is missing, malformed, over a cap or otherwise not trustworthy."""


class GitError(VerifyPrError):
    """Hardened git refused or failed."""


class GitHubApiError(VerifyPrError):
    """The GitHub REST API refused or failed."""


class ConfigError(VerifyPrError):
    """Settings are missing or inconsistent."""


class Cancelled(BaseException):
    """A signal (SIGINT, SIGTERM) cancelled the run: no verdict, exit CANCELLED (7).

    Not a ``VerifyPrError`` and not an ``Exception``, like ``KeyboardInterrupt`` and asyncio's
    ``CancelledError``: a handler that forgives an error (``except VerifyPrError`` around a
    git call that only costs the coverage figures, ``except Exception`` around a crash report)
    must not swallow a cancel and carry on running sandboxes. Only the entry points catch it.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def diagnostics(self) -> str:
        return self.message
