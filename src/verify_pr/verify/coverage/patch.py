"""Which of the PR's changed lines ran: measured in head's run and the proof's re-runs on head.

A :class:`Session` is made once the PR's code paths are known. It adds the coverage tracer,
with one list of files, to the commands of both sides (``plan`` for the whole runs, before's
and head's alike; ``run_all`` for the re-runs on both trees): a test sees the same tracer on
either side (docs/threat-model.md). It keeps what head's runs returned (``coverage.txt``,
parsed strictly: it comes from inside the PR's own process) and ends with a
:class:`PatchCoverage`; the figures feed no verdict. What the re-runs of each proof ran is
read by ``verify.proof_coverage``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from verify_pr.contract import MAX_COVERAGE_BYTES, new_report_path
from verify_pr.models.coverage import (
    MAX_COVERAGE_FILES,
    MAX_FILE_LINES,
    CoverageState,
    PatchCoverage,
)
from verify_pr.runners.base import Coverage, Runner
from verify_pr.sandbox.spool import ReportSpool
from verify_pr.verify.coverage.lines import FileLines, LineData, summarize
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan

RunJobs = Callable[[list[tuple[Path, SuitePlan]]], list[SuiteOutcome]]
_MAX_LINE = 10_000_000


class CoverageDataError(Exception):
    """The returned coverage data is not what our tracer writes (internal)."""


def _lines(value: object, what: str) -> frozenset[int]:
    if not isinstance(value, list) or len(value) > MAX_FILE_LINES:
        raise CoverageDataError(f"{what} is not a list of at most {MAX_FILE_LINES} lines")
    if not all(type(n) is int and 1 <= n <= _MAX_LINE for n in value):
        raise CoverageDataError(f"{what} holds something other than line numbers")
    return frozenset(value)


def parse_line_data(spool: ReportSpool, files: list[str], tree: Path | None = None) -> LineData:
    """Our tracers' JSON (version 1: pytest's bootstrap, vitest's provider), or jest's
    istanbul JSON (keyed by absolute paths; its lines' text read from ``tree``): only the
    files we asked for, only line numbers."""
    if spool.size > MAX_COVERAGE_BYTES:
        raise CoverageDataError("the coverage data is over its cap")
    with spool.open() as handle:
        data = handle.read(MAX_COVERAGE_BYTES + 1)
    if data.startswith(b"mode: "):
        return _go_profile(data, files, tree)
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise CoverageDataError(f"the coverage data is not JSON: {exc}") from None
    if isinstance(doc, dict) and "version" not in doc and tree is not None:
        from verify_pr.verify.coverage.istanbul import IstanbulError, parse_istanbul

        try:
            return parse_istanbul(doc, files, tree)
        except IstanbulError as exc:
            raise CoverageDataError(str(exc)) from None
    if not isinstance(doc, dict) or doc.get("version") != 1:
        raise CoverageDataError("the coverage data is not version 1 of ours")
    raw = doc.get("files")
    if not isinstance(raw, dict) or not set(raw) <= set(files):
        raise CoverageDataError("the coverage data names files that were not measured")
    tool = f"{str(doc.get('tracer', ''))[:40]} ({str(doc.get('runtime', ''))[:40]})"
    parsed: dict[str, FileLines] = {}
    for path, entry in raw.items():
        if not isinstance(entry, dict):
            raise CoverageDataError(f"{path}: not an object")
        exe = entry.get("executable")
        executable = None if exe is None else _lines(exe, f"{path} executable")
        inside = entry.get("function")
        parsed[path] = FileLines(
            executable,
            frozenset() if inside is None else _lines(inside, f"{path} function"),
            _lines(entry.get("run"), f"{path} run"),
        )
    return LineData(tool, parsed)


def _go_profile(data: bytes, files: list[str], tree: Path | None) -> LineData:
    """go test's own profile (``runners.go.coverage``), each file's import path mapped to its
    tree path by the module path of the go.mod above it in ``tree``."""
    from verify_pr.runners.go.coverage import ProfileError, parse_profile, profile_names

    if tree is None:
        raise CoverageDataError("a go coverage profile without the tree to map it")
    try:
        found = parse_profile(data, profile_names(tree, files), MAX_FILE_LINES)
    except (ProfileError, OSError) as exc:
        raise CoverageDataError(str(exc)) from None
    lines = {path: FileLines(exe, exe, ran) for path, (exe, ran) in found.items()}
    return LineData("go test -coverprofile", lines)


def _coverage_of(runner: Runner | None) -> Coverage:
    """The runner's tracer, the suffixes it measures, and why not when there is none."""
    if runner is None:
        return Coverage(
            None, missing="not measured: an own command is run as given, without a tracer"
        )
    return runner.coverage()


def _regular(tree: Path, path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(tree / path).st_mode)
    except OSError:
        return False


@dataclass
class Session:
    """One compare's measurement: the files, what each run returned, the summary."""

    runner: Runner | None  # None: an own command
    after_tree: Path
    changed: dict[str, tuple[int, ...]]  # code path -> its changed lines (after's numbering)
    # code path -> base's lines the PR removes or changes (base's numbering), and the tree
    # that runs base's code with the PR's tests ("before"); empty for ``verify-pr run``
    removed: dict[str, tuple[int, ...]] = field(default_factory=dict)
    before_tree: Path | None = None
    files: list[str] = field(init=False)
    reason: str = field(init=False)
    head: LineData | None = None
    head_note: str = ""
    proofs: list[LineData] = field(default_factory=list)
    proof_runs: int = 0
    has_proof: bool = True  # False for ``verify-pr run``: one run, no proof

    def __post_init__(self) -> None:
        coverage = _coverage_of(self.runner)
        self._instrument, suffixes, self.reason = (
            coverage.instrument,
            coverage.suffixes,
            coverage.missing,
        )
        # one list for both sides: the command a test can read is the same on either
        self.files = [
            p
            for p in sorted({*self.changed, *self.removed})
            if p.endswith(suffixes)
            and (
                (self.changed.get(p) and _regular(self.after_tree, p))
                or (
                    self.removed.get(p)
                    and self.before_tree is not None
                    and _regular(self.before_tree, p)
                )
            )
        ][:MAX_COVERAGE_FILES]
        if not self.reason and not self.files:
            self.reason = "no changed code file it can measure"

    @property
    def may_drop(self) -> bool:
        """A run may come back without the tracer's data (unknown, not refused): the runner
        runs the suite again without the tracer when it cannot load it (vitest)."""
        return _coverage_of(self.runner).may_drop

    @property
    def can_trace(self) -> bool:
        """The runner has a tracer verify-pr adds (not bun, not an own command)."""
        return self._instrument is not None

    def traced(self, tree: Path) -> bool:
        """Whether runs on ``tree`` get the tracer: head's and before's, never another."""
        return tree == self.after_tree or (
            self.before_tree is not None and tree == self.before_tree
        )

    def plan(self, plan: SuitePlan) -> SuitePlan:
        """``plan`` with the tracer on (a fresh coverage path), or unchanged."""
        if self.reason or self._instrument is None:
            return plan
        path = new_report_path(".json")
        command = self._instrument(plan.command, self.files, path)
        if command is None:
            return plan
        # the tracer wraps the whole line, the words after the runner too: nothing is added
        return dataclasses.replace(plan, shell=command, argv=(), coverage_path=path)

    def take(self, outcome: SuiteOutcome, tree: Path | None = None) -> LineData | None:
        """What a traced run returned, parsed (jest's lines read from ``tree``, head's by
        default); None, with why in ``head_note``, when nothing usable came back."""
        spool = outcome.run.coverage
        if spool is None:
            self.head_note = f"no coverage data came back ({outcome.run.result.coverage})"
            return None
        try:
            return parse_line_data(spool, self.files, tree or self.after_tree)
        except (CoverageDataError, OSError) as exc:
            self.head_note = f"the coverage data was refused: {exc}"[:300]
            return None

    def take_head(self, outcome: SuiteOutcome) -> None:
        self.head = self.take(outcome)

    def run_all(self, run_all: RunJobs) -> RunJobs:
        """``run_all`` with the tracer on in every job on the after and the before tree (the
        proof's re-runs on both sides), keeping what those on head returned."""

        def wrapped(jobs: list[tuple[Path, SuitePlan]]) -> list[SuiteOutcome]:
            planned = [(t, self.plan(p) if self.traced(t) else p) for t, p in jobs]
            outcomes = run_all(planned)
            for outcome, (tree, plan) in zip(outcomes, planned, strict=True):
                if plan.coverage_path is not None and tree == self.after_tree:
                    self.proof_runs += 1
                    data = self.take(outcome)
                    if data is not None:
                        self.proofs.append(data)
            return outcomes

        return wrapped

    def result(self, code: Sequence[str]) -> PatchCoverage:
        if self.reason:
            return PatchCoverage(
                state=CoverageState.NOT_MEASURED, note=self.reason, has_proof=self.has_proof
            )
        if self.head is None:
            note = f"not measured: {self.head_note or 'head ran without coverage'}"
            return PatchCoverage(
                state=CoverageState.NOT_MEASURED, note=note[:500], has_proof=self.has_proof
            )
        files = [p for p in self.files if p in code and self.changed.get(p)]
        try:
            return summarize(
                self.changed, files, self.head, self.proofs, self.proof_runs, self.has_proof
            )
        except ValueError as exc:  # pydantic's bounds: the figures are lost, never the run
            note = f"not measured: the figures are over their bounds ({str(exc)[:200]})"
            return PatchCoverage(
                state=CoverageState.NOT_MEASURED, note=note, has_proof=self.has_proof
            )


def start(
    git_dir: Path,
    base: str,
    after: str,
    runner: Runner | None,
    after_tree: Path,
    code: Sequence[str],
    before_tree: Path | None = None,
) -> Session:
    """A session for the PR's code paths, their changed lines read with hardened git from
    ``base`` to ``after`` (head, or the merge result's tree), and, with ``before_tree``, the
    lines of base they remove or change (the diff read the other way)."""
    from verify_pr.errors import VerifyPrError
    from verify_pr.git.changed_lines import changed_lines

    try:
        changed = changed_lines(git_dir, base, after, list(code))
        removed = {} if before_tree is None else changed_lines(git_dir, after, base, list(code))
    except VerifyPrError as exc:  # a git failure costs the figures, never the compare
        session = Session(runner, after_tree, {}, before_tree=before_tree)
        session.reason = f"not measured: the changed lines could not be read ({exc})"[:500]
        return session
    return Session(runner, after_tree, changed, removed, before_tree)
