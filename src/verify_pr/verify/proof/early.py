"""The proof's re-runs started before base's own run has ended, kept only when they are the
re-runs the serial order would have run.

Base's own run (when the PR edits a test path of base) is as long as head's when it cannot be
limited to the edited modules (a data file, a golden file, a conftest), and the re-runs used to
wait for it: on two cores that was a serial tail of one whole run plus the re-runs. What it can
change about the re-runs is narrow: it only takes proofs away (``pairing.pair``: a FAIL_TO_PASS
test that passed there and failed on before only outside its body, or one in a file its report
shows to be code and test at once) or places tests in a code path of the PR, which moves the
path to the test side and runs before again on a new tree.

So the re-runs start on the free slot as soon as before and head have ended, with the proof
paired without base's own run. When it has ended the proof is paired again as it always was,
and the early re-runs are kept only if they re-ran exactly the same tests (same list, same
order) on the same trees (no path moved). Otherwise they are dropped, with the coverage figures
they added, and the re-runs run again after base's own run, as they did before: the verdict is
always the one the serial order gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from verify_pr.verify.coverage.patch import Session
from verify_pr.verify.pairing.pairing import pair
from verify_pr.verify.proof import rerun
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan
from verify_pr.verify.split.placed import late_tests, placed_files


@dataclass(frozen=True)
class Early:
    proofs: tuple[str, ...]  # the tests the early re-runs re-ran, in the order confirm took them
    confirmation: rerun.Confirmation
    coverage_kept: int  # the coverage session's figures before the early re-runs added theirs
    coverage_runs: int


def start(
    plan: SuitePlan,
    trees: tuple[Path, Path, Path],  # base, before, after
    code: Sequence[str],
    outcomes: tuple[SuiteOutcome, SuiteOutcome],  # before, head
    flake_runs: int,
    coverage: Session,
    run_all: rerun.RunJobs,
) -> Early | None:
    """The re-runs of the proof paired from before and head alone (None when a path would
    move to the test side: before runs again first, whatever base's own run says)."""
    base, before_tree, after = trees
    before, head = outcomes
    late = late_tests(code, placed_files(outcomes, (base, after)), base, plan.runner)
    if late.moved:
        return None
    proofs = pair(before, head, None, late.mixed).proofs
    kept, runs = len(coverage.proofs), coverage.proof_runs
    confirmation = rerun.confirm(
        plan, before_tree, after, head, proofs, flake_runs, coverage.run_all(run_all)
    )
    return Early(tuple(proofs), confirmation, kept, runs)


def kept(
    early: Early | None, proofs: Sequence[str], moved: Sequence[str], coverage: Session
) -> rerun.Confirmation | None:
    """The early re-runs' confirmation when they re-ran what the serial order re-runs now
    (``proofs`` paired with base's own run, ``moved`` the paths it moved); else None, their
    coverage figures dropped."""
    if early is None:
        return None
    if moved or tuple(proofs) != early.proofs:
        del coverage.proofs[early.coverage_kept :]
        coverage.proof_runs = early.coverage_runs
        return None
    return early.confirmation
