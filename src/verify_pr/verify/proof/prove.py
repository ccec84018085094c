"""The proof stage of a compare: the FAIL_TO_PASS tests re-run on both sides (early, beside
base's own run, when those are the re-runs the serial order would run: ``early``; else after
the pairing: ``rerun.confirm``), the tests of base gone on head run from base's file over
head's code (``pairing.removed``: the fourth run), and whether each proof's re-runs ran the
code the PR changed (``ran_changed``).

``Prover`` holds what every re-run of one compare is made with: base's plan, the flake runs
(read once from the settings, here), the coverage session and the pool's ``run_all``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verify_pr.verify.coverage.patch import Session
from verify_pr.verify.pairing.pairing import Pairing
from verify_pr.verify.pairing.removed import Removed, judge_removed
from verify_pr.verify.pairing.side_runs import Started, Whole
from verify_pr.verify.proof import early, ran_changed, rerun
from verify_pr.verify.proof.facts import ProofFacts
from verify_pr.verify.runs.suite import SuitePlan


@dataclass(frozen=True)
class Proven:
    """The proof stage's hand-off: how the proofs stood up, and the gone tests' run."""

    facts: ProofFacts
    gone: Removed


@dataclass(frozen=True)
class Prover:
    plan: SuitePlan  # base's: every re-run is planned by it
    flake_runs: int  # each FAIL_TO_PASS test's re-runs per side
    coverage: Session  # the tracer on both sides' re-runs
    run_all: rerun.RunJobs  # the compare's pool

    def beside(self, started: Started) -> early.Early | None:
        """The re-runs started beside base's own run while it still runs (None otherwise)."""
        if not started.pending():
            return None
        sides = started.sides
        return early.start(
            self.plan,
            (sides.base, sides.before, sides.after),
            started.paths.code,
            (started.before, started.head),
            self.flake_runs,
            self.coverage,
            self.run_all,
        )

    def prove(
        self, started_early: early.Early | None, pairing: Pairing, whole: Whole, work: Path
    ) -> Proven:
        """The proofs of ``pairing`` re-run (the early re-runs kept when they re-ran the same
        tests on the same trees), the gone tests run, and what the re-runs ran."""
        sides, code = whole.sides, whole.paths.code
        confirmation = early.kept(started_early, pairing.proofs, whole.paths.moved, self.coverage)
        if confirmation is None:
            confirmation = rerun.confirm(
                self.plan,
                sides.before,
                sides.after,
                whole.head,
                pairing.proofs,
                self.flake_runs,
                self.coverage.run_all(self.run_all),  # the tracer on both sides' re-runs
            )
        # a test of base gone on head runs from base's file over head's code (the fourth run)
        gone = judge_removed(
            self.plan,
            sides.base,
            sides.after,
            work,
            pairing.findings.gone,
            (whole.base_own, whole.before),
            pairing.proofs,
            code,
            self.run_all,
        )
        changed_code = ran_changed.assess(pairing.proofs, code, confirmation, self.coverage)
        return Proven(ProofFacts.of(confirmation, self.flake_runs, changed_code), gone)
