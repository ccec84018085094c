"""The proof stage's hand-off: how the FAIL_TO_PASS tests stood up to their re-runs, and
whether those re-runs ran the code the PR changed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from verify_pr.verify.proof.ran_changed import ProofCode
from verify_pr.verify.proof.rerun import Confirmation


@dataclass(frozen=True)
class ProofFacts:
    flaky: tuple[str, ...] = ()  # FAIL_TO_PASS ids whose re-runs did not repeat
    unconfirmed: tuple[str, ...] = ()  # FAIL_TO_PASS ids that could not be re-run
    # why: each re-run of an unconfirmed test that timed out or did not complete, with its
    # side and limit (the reason names the first: ``decide``)
    unfinished: tuple[str, ...] = ()
    reruns: int = 0
    # the FAIL_TO_PASS tests re-run ``reruns`` times per side (None: every one of them)
    rerun_ids: tuple[str, ...] | None = None
    rerun_whole: tuple[str, ...] = ()  # of those, re-run with the whole suite (no selector)
    # each FAIL_TO_PASS test: did its re-runs run changed code (``ran_changed``); None: the
    # rule is not applied (a caller that has no re-runs to read)
    changed_code: Mapping[str, ProofCode] | None = None

    @classmethod
    def of(
        cls, confirmation: Confirmation, flake_runs: int, changed_code: Mapping[str, ProofCode]
    ) -> ProofFacts:
        """What the re-runs (``rerun.confirm``, or the early ones kept) showed."""
        return cls(
            flaky=confirmation.flaky,
            unconfirmed=confirmation.unconfirmed,
            unfinished=confirmation.unfinished,
            reruns=flake_runs if confirmation.checked else 0,
            rerun_ids=confirmation.rerun,
            rerun_whole=confirmation.whole,
            changed_code=changed_code,
        )
