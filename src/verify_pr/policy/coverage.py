"""Patch coverage in an artifact, checked against itself (docs/coverage.md).

The figures are information, never part of a verdict, but the check run shows them and puts
notices on the lines they name, so a block whose totals do not follow from its own per-file
lines, whose lines are not among the changed lines, or that claims a proof where there is
none (a run has no proof) is a forged one: it makes the result NOT TRUSTED, like any other
contradiction (``policy.verdict``). Oversized blocks never get here: the strict models refuse
them.
"""

from __future__ import annotations

from verify_pr.models.coverage import CoverageState, PatchCoverage


def coverage_problems(cov: PatchCoverage | None, side: str, with_proof: bool) -> list[str]:
    """Where ``cov`` contradicts itself; ``with_proof``: a comparison's (it has a proof), else
    a run's (it has none)."""
    if cov is None:
        return []
    what = f"{side}'s patch coverage"
    problems: list[str] = []
    if cov.has_proof != with_proof:
        problems.append(f"{what} {'lacks' if with_proof else 'claims'} a proof")
    if not cov.has_proof and (cov.proof_measured or cov.proof_lines or cov.proof_in_functions):
        problems.append(f"{what} has no proof but counts lines the proof ran")
    if cov.state is CoverageState.NOT_MEASURED:
        if cov.files or cov.changed_lines or cov.run_lines or cov.proof_lines:
            problems.append(f"{what} is not measured but holds figures")
        return problems
    measured = [f for f in cov.files if f.measured]
    for entry in cov.files:
        changed = set(entry.changed)
        parts = (entry.in_functions, entry.run, entry.proof, entry.not_run)
        if not entry.measured and any((entry.changed, *parts)):
            problems.append(f"{what}: {entry.path!r} is not measured but holds lines")
        elif not all(set(lines) <= changed for lines in parts):
            problems.append(f"{what}: {entry.path!r} names lines that are not changed lines")
        elif set(entry.not_run) != changed - set(entry.run) - set(entry.proof):
            problems.append(f"{what}: {entry.path!r}'s lines run by nothing do not add up")
        if not cov.has_proof and entry.proof:
            problems.append(f"{what}: {entry.path!r} has lines the proof ran, without a proof")
    if len({f.path for f in cov.files}) != len(cov.files):
        problems.append(f"{what} names a file twice")
    sums = (
        sum(len(f.changed) for f in measured),
        sum(len(set(f.run) | set(f.proof)) for f in measured),
        sum(len(f.proof) for f in measured),
        sum(len(f.in_functions) for f in measured),
        sum(len(set(f.proof) & set(f.in_functions)) for f in measured),
    )
    claimed = (
        cov.changed_lines,
        cov.run_lines,
        cov.proof_lines,
        cov.changed_in_functions,
        cov.proof_in_functions,
    )
    if sums != claimed:
        problems.append(f"{what}: its totals do not follow from its files")
    return problems
