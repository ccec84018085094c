"""result.json: what the sandbox runner says about one run of one command."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from verify_pr.contract import MAX_TIMEOUT_S
from verify_pr.models.base import BoundaryModel

DETAIL_MAX_CHARS = 4096
IMAGE_MAX_CHARS = 256


class RunStatus(StrEnum):
    """How the run ended. BLOCKED says nothing about the PR and is never a verdict."""

    COMPLETED = "COMPLETED"
    TIMEOUT = "TIMEOUT"
    ERROR = "ERROR"
    BLOCKED = "BLOCKED"


class ReportStatus(StrEnum):
    """What became of the report file the check was asked to write."""

    NOT_REQUESTED = "not_requested"
    RETURNED = "returned"
    MISSING = "missing"
    NOT_REGULAR = "not_regular"
    TOO_LARGE = "too_large"
    STALE = "stale"
    UNKNOWN = "unknown"


EnvName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")]


class CheckEnvironment(BoundaryModel):
    """What the check ran with (``sandbox.image_check``): the variables the wrapper's ``env -i``
    passed, with their values, and the names of the image's ENV that were accepted but not
    passed (values never shown: one may hold a secret, e.g. PIP_INDEX_URL with a token)."""

    passed: Annotated[dict[EnvName, Annotated[str, Field(max_length=1024)]], Field(max_length=8)]
    scrubbed: Annotated[tuple[EnvName, ...], Field(max_length=64)] = ()


class SandboxResult(BoundaryModel):
    """The contract's result.json (schema: schema/result.schema.json)."""

    status: RunStatus
    exit_code: Annotated[int, Field(ge=0, le=255)] | None
    output_truncated: bool
    detail: Annotated[str, Field(max_length=DETAIL_MAX_CHARS)]
    image: Annotated[str, Field(max_length=IMAGE_MAX_CHARS)]
    timeout_s: Annotated[int, Field(ge=1, le=MAX_TIMEOUT_S)]
    image_id: Annotated[str, Field(max_length=80)] | None = None
    report: ReportStatus = ReportStatus.NOT_REQUESTED
    # what became of the coverage data file (--coverage; docs/coverage.md), same states
    coverage: ReportStatus = ReportStatus.NOT_REQUESTED
    duration_s: Annotated[float, Field(ge=0)] | None = None
    # The run's CPU and memory limits (defaults: the spec's 1 CPU and 512 MiB).
    cpus: Annotated[float, Field(gt=0, le=64)] = 1.0
    memory_bytes: Annotated[int, Field(ge=512 * 1024 * 1024, le=64 * 1024**3)] = 512 * 1024 * 1024
    # None when no container ran (BLOCKED) or for files written before the field existed.
    environment: CheckEnvironment | None = None
