"""From the runs' line sets to the figures: per file, and "N of M (by the proof: K)"."""

from __future__ import annotations

from dataclasses import dataclass

from verify_pr.models.coverage import CoverageState, FileCoverage, PatchCoverage


@dataclass(frozen=True)
class FileLines:
    """What one run's tracer said about one file."""

    executable: frozenset[int] | None  # None: the image could not compile it
    in_functions: frozenset[int]
    run: frozenset[int]


@dataclass(frozen=True)
class LineData:
    """One run's coverage data, parsed."""

    tool: str
    files: dict[str, FileLines]


def summarize(
    changed: dict[str, tuple[int, ...]],
    files: list[str],
    head: LineData,
    proof_data: list[LineData],
    proof_runs: int,
    has_proof: bool = True,
) -> PatchCoverage:
    """The figures: ``head`` is head's run, ``proof_data`` what the proof's re-runs on head
    returned (of ``proof_runs``). ``has_proof`` False: a run (``verify-pr run``), which has
    no proof, so no by-the-proof figure and no note about it."""
    proof_measured = has_proof and proof_runs > 0 and len(proof_data) == proof_runs
    entries: list[FileCoverage] = []
    for path in files:
        lines = head.files.get(path)
        if lines is None or lines.executable is None:
            why = "the image could not compile it" if lines else "no data for this file"
            entries.append(FileCoverage(path=path, measured=False, note=why))
            continue
        exe = sorted(set(changed[path]) & lines.executable)
        proof: set[int] = set()
        for data in proof_data:
            got = data.files.get(path)
            if got is not None:
                proof |= got.run
        run = [n for n in exe if n in lines.run]
        by_proof = [n for n in exe if n in proof]
        entries.append(
            FileCoverage(
                path=path,
                measured=True,
                changed=tuple(exe),
                in_functions=tuple(n for n in exe if n in lines.in_functions),
                run=tuple(run),
                proof=tuple(by_proof),
                not_run=tuple(n for n in exe if n not in lines.run and n not in proof),
            )
        )
    measured = [e for e in entries if e.measured]
    note = "" if proof_measured or not has_proof else _proof_note(proof_runs, len(proof_data))
    return PatchCoverage(
        state=CoverageState.MEASURED,
        tool=head.tool[:100],
        note=note,
        changed_lines=sum(len(e.changed) for e in measured),
        run_lines=sum(len(set(e.run) | set(e.proof)) for e in measured),
        proof_lines=sum(len(e.proof) for e in measured),
        proof_measured=proof_measured,
        has_proof=has_proof,
        changed_in_functions=sum(len(e.in_functions) for e in measured),
        proof_in_functions=sum(len(set(e.proof) & set(e.in_functions)) for e in measured),
        files=tuple(entries),
    )


def _proof_note(runs: int, returned: int) -> str:
    if runs == 0:
        return "the proof was not re-run on head, so what it ran is not known"
    return f"{runs - returned} of the proof's {runs} re-run(s) on head returned no coverage data"
