"""Patch coverage: which of the PR's changed lines ran (docs/coverage.md).

Information for the reviewer, measured inside the PR's own process: never a proof, and never
what makes a verdict green or red.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from verify_pr.models.base import BoundaryModel
from verify_pr.models.report import PathText

MAX_COVERAGE_FILES = 200
MAX_FILE_LINES = 100_000
NOTE_MAX_CHARS = 500

Lines = Annotated[
    tuple[Annotated[int, Field(ge=1, le=10_000_000)], ...], Field(max_length=MAX_FILE_LINES)
]


class CoverageState(StrEnum):
    MEASURED = "measured"
    NOT_MEASURED = "not_measured"  # said as such, with the reason in ``note``


class FileCoverage(BoundaryModel):
    """One changed code file: its changed executable lines and who ran them."""

    path: PathText
    measured: bool
    changed: Lines = ()  # changed lines that are executable
    in_functions: Lines = ()  # of those, the lines inside function bodies (not import-time)
    run: Lines = ()  # run by the suite (head's run)
    proof: Lines = ()  # run by the FAIL_TO_PASS tests' re-runs on head
    not_run: Lines = ()  # run by nothing measured
    note: Annotated[str, Field(max_length=NOTE_MAX_CHARS)] = ""


class PatchCoverage(BoundaryModel):
    state: CoverageState
    tool: Annotated[str, Field(max_length=100)] = ""  # e.g. "settrace (python 3.11.2)"
    note: Annotated[str, Field(max_length=NOTE_MAX_CHARS)] = ""
    changed_lines: Annotated[int, Field(ge=0)] = 0  # M
    run_lines: Annotated[int, Field(ge=0)] = 0  # N
    proof_lines: Annotated[int, Field(ge=0)] = 0  # K
    proof_measured: bool = False  # the proof's re-runs returned coverage data
    # False for ``verify-pr run`` (no proof there): no by-the-proof figure, said as such
    has_proof: bool = True
    changed_in_functions: Annotated[int, Field(ge=0)] = 0
    proof_in_functions: Annotated[int, Field(ge=0)] = 0
    files: Annotated[tuple[FileCoverage, ...], Field(max_length=MAX_COVERAGE_FILES)] = ()

    @property
    def proof_import_only(self) -> bool:
        """The proof ran none of the changed lines inside functions: only what an import runs."""
        return self.proof_measured and self.proof_in_functions == 0
