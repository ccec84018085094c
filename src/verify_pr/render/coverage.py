"""Patch coverage for a person: the headline, what it means, and the lines nothing ran.

Every surface (compare_summary.md, the job summary, the check run and its annotations) uses
these, so the words are the same everywhere. Information, never a proof (docs/coverage.md).
"""

from __future__ import annotations

from collections.abc import Iterable

from verify_pr.markdown import escape_inline, inline_code
from verify_pr.models.coverage import CoverageState, PatchCoverage

MAX_LISTED_SPANS = 50


NO_PROOF = "no proof in mode run"
MAX_GAP = 2  # lines between two neighbours of a range (a blank line, a comment, a brace)


def ranges(lines: Iterable[int], among: Iterable[int]) -> list[tuple[int, int]]:
    """``lines`` as runs of neighbours in ``among`` (the changed executable lines) at most
    ``MAX_GAP`` lines apart: 9 and 11 are one range when 10 is not an executable changed
    line; 11 and 60 never are."""
    wanted = set(lines)
    out: list[tuple[int, int]] = []
    prev: int | None = None  # the previous line of ``among``, when it is in ``lines``
    for n in sorted(set(among)):
        if n in wanted:
            if prev is not None and n - prev - 1 <= MAX_GAP:
                out[-1] = (out[-1][0], n)
            else:
                out.append((n, n))
            prev = n
        else:
            prev = None
    return out


def not_run_ranges(cov: PatchCoverage) -> list[tuple[str, int, int]]:
    """Each run of changed lines nothing ran: (path, first, last)."""
    return [
        (entry.path, first, last)
        for entry in cov.files
        for first, last in ranges(entry.not_run, entry.changed)
    ]


def not_run_spans(cov: PatchCoverage) -> list[str]:
    """Each changed line nothing ran, as ``path:line`` or ``path:first-last``."""
    return [
        f"{path}:{first}" if first == last else f"{path}:{first}-{last}"
        for path, first, last in not_run_ranges(cov)
    ]


def headline(cov: PatchCoverage) -> str:
    """The one line every surface shows."""
    if cov.state is CoverageState.NOT_MEASURED:
        return f"changed lines run: {cov.note or 'not measured'}"
    if not cov.has_proof:
        return f"changed lines run: {cov.run_lines} of {cov.changed_lines} ({NO_PROOF})"
    proof = str(cov.proof_lines) if cov.proof_measured else "not measured"
    return f"changed lines run: {cov.run_lines} of {cov.changed_lines} (by the proof: {proof})"


def meaning(cov: PatchCoverage) -> list[str]:
    """What the figures mean, plainly: never a proof; an import-only proof said as such."""
    out = [
        "Measured inside the PR's own processes: information for the reviewer, never a proof, "
        "and never part of the verdict."
    ]
    if cov.state is not CoverageState.MEASURED:
        return out
    if not cov.has_proof:
        out.append(
            "A run has no proof (no FAIL_TO_PASS tests: that needs compare), so there is no "
            "figure for what the proof ran."
        )
    if cov.proof_measured and cov.changed_lines and cov.proof_in_functions == 0:
        if cov.changed_in_functions:
            out.append(
                "The proof ran none of the changed lines inside functions: only what any "
                "import of the changed modules runs (definitions, module constants)."
            )
        else:
            out.append(
                "The changed lines are all import-time lines (definitions, module constants): "
                "any import runs them, so running them shows little."
            )
    if cov.note:
        out.append(cov.note[0].upper() + cov.note[1:] + ".")
    return out


def coverage_section(cov: PatchCoverage | None) -> list[str]:
    """The markdown lines: headline, meaning, unmeasured files, the lines nothing ran."""
    if cov is None:
        return []
    lines = [f"**{escape_inline(headline(cov))}**", ""]
    lines += [f"{escape_inline(text)}" for text in meaning(cov)]
    lines.append("")
    unmeasured = [f for f in cov.files if not f.measured]
    for entry in unmeasured[:MAX_LISTED_SPANS]:
        lines.append(f"- not measured: {inline_code(entry.path)} ({escape_inline(entry.note)})")
    spans = not_run_spans(cov)
    if spans:
        lines.append(f"Changed lines nothing ran ({len(spans)}):")
        lines += [f"- {inline_code(span)}" for span in spans[:MAX_LISTED_SPANS]]
        if len(spans) > MAX_LISTED_SPANS:
            lines.append(f"- … and {len(spans) - MAX_LISTED_SPANS} more")
    if unmeasured or spans:
        lines.append("")
    return lines
