"""A VERIFIED comparison must show a proof that ran changed code (docs/coverage.md, "A proof
must run changed code"), re-derived from the result's own data as ``verify.proof_coverage``
decides it: the PR changes a code file, and a proof either ran one of its changed lines (each
named line on a code path of the result) or could not be measured (said in the reason).
``counts`` is the one place that says which states count, for both jobs."""

from __future__ import annotations

from verify_pr.models.compare import COUNTING_CHANGED_CODE, ChangedCode, CompareResult, Proof


def counts(state: ChangedCode | None) -> bool:
    """Whether a proof in this state counts: it ran changed code, or that was not measured
    (said in the verdict's reason)."""
    return state in COUNTING_CHANGED_CODE


def changed_code_gaps(result: CompareResult) -> list[str]:
    """What is missing from a VERIFIED result for the changed-code rule."""
    if not result.code_paths:
        return ["the PR changes no code file (no code path changed, so no proof)"]
    counting = [p for p in result.proofs if counts(p.changed_code)]
    if not counting:
        return ["no proof ran a line the PR changed in a code file"]
    code = set(result.code_paths)
    gaps = []
    if any(p.changed_code is ChangedCode.RAN and not _names_code(p, code) for p in counting):
        gaps.append("a proof's changed lines are not lines of the PR's code paths")
    return gaps


def _names_code(proof: Proof, code: set[str]) -> bool:
    if not proof.changed_code_lines:
        return False
    for line in proof.changed_code_lines:
        side, _, where = line.partition(" ")
        path, _, number = where.rpartition(":")
        if side not in ("head", "before") or path not in code or not number.isdigit():
            return False
    return True
