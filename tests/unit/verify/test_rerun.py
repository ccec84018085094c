"""The proof's re-runs: every repetition of both sides goes to the sandboxes in one batch, and
each test's standing is the one the runs give in the order they were made."""

from __future__ import annotations

from pathlib import Path

from tests.unit.verify.helpers import FIXED_BASE, FIXED_HEAD, F, P, outcome
from verify_pr.models.report import TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.verify import rerun
from verify_pr.verify.suite import SuiteOutcome, SuitePlan

PLAN = SuitePlan("pytest", "python3 -m pytest --junitxml=/tmp/r.xml", "/tmp/r.xml", "pytest")
CUSTOM = SuitePlan("custom", "sh run-tests.sh /tmp/r.xml", "/tmp/r.xml", "junit")
BEFORE, AFTER = Path("/trees/before"), Path("/trees/after")


class _Scripted:
    """The sandboxes: the n-th job of the one batch gets the n-th scripted outcome."""

    def __init__(self, outcomes: list[SuiteOutcome]) -> None:
        self.outcomes = outcomes
        self.batches: list[list[tuple[Path, SuitePlan]]] = []

    def __call__(self, jobs: list[tuple[Path, SuitePlan]]) -> list[SuiteOutcome]:
        self.batches.append(jobs)
        assert len(jobs) == len(self.outcomes)
        return self.outcomes


def _confirm(plan: SuitePlan, proofs: list[str], runs: _Scripted, head: dict) -> rerun.Confirmation:
    return rerun.confirm(plan, BEFORE, AFTER, outcome(head), proofs, 3, runs)


def test_every_repetition_of_both_sides_goes_in_one_batch_in_round_order() -> None:
    runs = _Scripted([outcome(FIXED_BASE), outcome(FIXED_HEAD)] * 3)
    found = _confirm(PLAN, ["m.py::m::t_bug"], runs, FIXED_HEAD)
    assert found == rerun.Confirmation(True, (), ())
    assert len(runs.batches) == 1  # no repetition waits for the one before it
    (batch,) = runs.batches
    assert [tree for tree, _ in batch] == [BEFORE, AFTER] * 3
    reports = {plan.report_path for _, plan in batch}
    assert len(reports) == 6  # each run its own report path
    assert all(plan.command.endswith(" m.py::t_bug") for _, plan in batch)


def test_a_test_that_passes_once_on_before_is_flaky() -> None:
    # the second repetition on base's code passes: flaky, whatever the later runs say
    scripted = [outcome(FIXED_BASE), outcome(FIXED_HEAD)] * 3
    scripted[2] = outcome(FIXED_HEAD)
    found = _confirm(PLAN, ["m.py::m::t_bug"], _Scripted(scripted), FIXED_HEAD)
    assert found.flaky == ("m.py::m::t_bug",) and found.unconfirmed == ()


def test_the_first_standing_that_is_not_confirmed_is_kept() -> None:
    # the first head run never completed (unconfirmed); a later one fails (flaky): the
    # first one made stands, as it did when each repetition waited for the one before
    scripted = [outcome(FIXED_BASE), outcome(FIXED_HEAD)] * 3
    scripted[1] = outcome(FIXED_HEAD, status=RunStatus.TIMEOUT)
    scripted[5] = outcome(FIXED_BASE)
    found = _confirm(PLAN, ["m.py::m::t_bug"], _Scripted(scripted), FIXED_HEAD)
    assert found.unconfirmed == ("m.py::m::t_bug",) and found.flaky == ()


def test_a_head_run_that_skips_the_test_is_flaky() -> None:
    scripted = [outcome(FIXED_BASE), outcome(FIXED_HEAD)] * 3
    scripted[3] = outcome({"t_bug": TestStatus.SKIPPED, "t_ok": P})
    found = _confirm(PLAN, ["m.py::m::t_bug"], _Scripted(scripted), FIXED_HEAD)
    assert found.flaky == ("m.py::m::t_bug",)


def test_whole_runs_of_an_own_command_are_one_batch_and_judged_per_test() -> None:
    # an own command cannot select: each proof re-runs whole on its own, 3 times per side;
    # all 12 runs go at once and each test is judged on its own six only
    head = {"a": P, "b": P}
    good = [outcome({"a": F, "b": F}), outcome(head)] * 3
    bad = [outcome({"a": F, "b": F}), outcome(head)] * 3
    bad[4] = outcome({"a": F, "b": P})  # b passes on base's code in its own third repetition
    runs = _Scripted(good + bad)
    found = _confirm(CUSTOM, ["m.py::m::a", "m.py::m::b"], runs, head)
    assert len(runs.batches) == 1 and len(runs.batches[0]) == 12
    assert all(plan.command == f"sh run-tests.sh {plan.report_path}" for _, plan in runs.batches[0])
    assert found.flaky == ("m.py::m::b",) and found.unconfirmed == ()
    # a's own third repetition on base's code passing makes a flaky, and only a
    bad_a = [outcome({"a": F, "b": F}), outcome(head)] * 3
    bad_a[4] = outcome({"a": P, "b": F})
    found = _confirm(CUSTOM, ["m.py::m::a", "m.py::m::b"], _Scripted(bad_a + good), head)
    assert found.flaky == ("m.py::m::a",)


def test_no_re_run_without_a_proof_or_with_zero_repetitions() -> None:
    runs = _Scripted([])
    assert rerun.confirm(PLAN, BEFORE, AFTER, outcome(FIXED_HEAD), [], 3, runs).checked is False
    proof = ["m.py::m::t_bug"]
    assert rerun.confirm(PLAN, BEFORE, AFTER, outcome(FIXED_HEAD), proof, 0, runs).checked is False
    assert runs.batches == []
