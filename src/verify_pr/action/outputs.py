"""What the verify step leaves behind: step outputs, the untrusted log, the upload folder."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from verify_pr.contract import COMPARE_RESULT_FILE, COMPARE_SUMMARY_FILE, REPORT_FILE
from verify_pr.github.actions_io import ActionsIO
from verify_pr.models.compare import (
    COMPARE_SIDES,
    SIDE_FILES,
    CompareResult,
    Transition,
    side_file,
)
from verify_pr.models.coverage import CoverageState, PatchCoverage
from verify_pr.models.listing import LISTING_FILES
from verify_pr.models.report import Totals
from verify_pr.models.sandbox import RunStatus

LOG_OUTPUT_MAX_BYTES = 1 << 20
# a job's outputs share 1 MiB on GitHub: the output lists the first ids, the artifact all
MAX_FAIL_TO_PASS_OUTPUT = 200
COUNT_OUTPUTS = ("total", "passed", "failed", "errors", "skipped", "expected-failures")
COVERAGE_OUTPUTS = ("changed-lines", "changed-lines-run", "changed-lines-run-by-proof")


def print_untrusted(io: ActionsIO, title: str, data: bytes) -> None:
    """The verifier's or the PR's text to the log, with workflow commands off."""
    text = data[:LOG_OUTPUT_MAX_BYTES].decode("utf-8", "replace")
    io.stream.write(f"verify-pr: {title} (untrusted; workflow commands are off):\n")
    with io.untrusted_log() as write:
        write(text)


def set_count_outputs(io: ActionsIO, totals: Totals | None) -> None:
    """The report's counts as outputs (``COUNT_OUTPUTS``); empty with no report."""
    values = ("",) * len(COUNT_OUTPUTS)
    if totals is not None:
        values = tuple(
            str(n)
            for n in (
                totals.total,
                totals.passed,
                totals.failed,
                totals.error,
                totals.skipped,
                totals.expected_failure,
            )
        )
    for name, value in zip(COUNT_OUTPUTS, values, strict=True):
        io.set_output(name, value)


def set_coverage_outputs(io: ActionsIO, coverage: PatchCoverage | None) -> None:
    """Patch coverage's counts (docs/coverage.md); empty when not measured (the proof's too
    when its re-runs returned no data). Information, never part of the verdict."""
    values = ["", "", ""]
    if coverage is not None and coverage.state is CoverageState.MEASURED:
        values[:2] = [str(coverage.changed_lines), str(coverage.run_lines)]
        if coverage.proof_measured:
            values[2] = str(coverage.proof_lines)
    for name, value in zip(COVERAGE_OUTPUTS, values, strict=True):
        io.set_output(name, value)


def fail_to_pass_output(result: CompareResult) -> str:
    """The FAIL_TO_PASS test ids as a JSON array (ASCII-escaped: the ids are the PR's text)."""
    ids = [t.id for t in result.transitions if t.transition is Transition.FAIL_TO_PASS]
    return json.dumps(ids[:MAX_FAIL_TO_PASS_OUTPUT], ensure_ascii=True)


def compare_status(result: CompareResult) -> str:
    """One status for two runs: the first side that did not complete, else COMPLETED."""
    for verdict in (result.before, result.head):
        if verdict.sandbox.status is not RunStatus.COMPLETED:
            return verdict.sandbox.status.value
    return RunStatus.COMPLETED.value


def flatten_compare(out: Path, upload: Path) -> list[str]:
    """Copy what ``verify-pr compare`` wrote into ``upload`` under the flat artifact names.

    Only regular files (never a link) of the allow-listed names are copied; ``upload`` is
    created and must not exist. Returns the names written. A comparison of runs wider than
    their verdict files carries their listings and not the runners' raw reports (at that
    scale tens of MiB each, over what the publish job reads: the listing stands for them).
    """
    sources = {COMPARE_RESULT_FILE: out / COMPARE_RESULT_FILE}
    sources[COMPARE_SUMMARY_FILE] = out / COMPARE_SUMMARY_FILE
    listings = {name: out / name for name in LISTING_FILES.values()}
    sources.update(listings)
    wide = any(_regular(path) for path in listings.values())
    for side in COMPARE_SIDES:
        for name in SIDE_FILES:
            if not (wide and name == REPORT_FILE):
                sources[side_file(side, name)] = out / side / name
    upload.mkdir(mode=0o700)
    written = []
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    for name, source in sources.items():
        if not _regular(source):
            continue
        data = source.read_bytes()
        with os.fdopen(os.open(upload / name, flags, 0o600), "wb") as handle:
            handle.write(data)
        written.append(name)
    return written


def _regular(path: Path) -> bool:
    """A regular file, never a link."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False
