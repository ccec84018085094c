"""verdict.json: what ``verify-pr run`` concludes from one sandboxed run of a suite."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from verify_pr.models.base import BoundaryModel
from verify_pr.models.coverage import PatchCoverage
from verify_pr.models.report import TestCase, Totals
from verify_pr.models.sandbox import SandboxResult

REASON_MAX_CHARS = 500
MAX_REASONS = 20
# verdict.json lists at most this many testcases (failures first); totals count them all.
VERDICT_MAX_TESTCASES = 10_000


class Verdict(StrEnum):
    """PASS and FAIL need evidence; NOT_PROVEN is everything else. BLOCKED is not a verdict
    on the PR: the sandbox could not run."""

    PASS = "PASS"  # noqa: S105 (a verdict, not a password)
    FAIL = "FAIL"
    NOT_PROVEN = "NOT_PROVEN"
    BLOCKED = "BLOCKED"


Reason = Annotated[str, Field(max_length=REASON_MAX_CHARS)]


class VerdictFile(BoundaryModel):
    """The verifier's file (schema: schema/verdict.schema.json)."""

    verdict: Verdict
    reasons: Annotated[tuple[Reason, ...], Field(max_length=MAX_REASONS)]
    runner: Annotated[str, Field(max_length=100)]
    runner_version: Annotated[str, Field(max_length=100)] | None
    command: Annotated[str, Field(max_length=4096)]
    totals: Totals | None
    testcases: Annotated[tuple[TestCase, ...], Field(max_length=VERDICT_MAX_TESTCASES)]
    sandbox: SandboxResult
    # ``verify-pr run --diff-base``: which changed lines ran (docs/coverage.md); information,
    # never part of the verdict (set after the verdict is decided). None when not asked
    patch_coverage: PatchCoverage | None = None
