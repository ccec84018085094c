"""The proof's re-runs: every repetition of both sides goes to the sandboxes in one batch, and
each test's standing is the one the runs give in the order they were made."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.verify.helpers import FIXED_BASE, FIXED_HEAD, F, P, outcome
from verify_pr.models.report import ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.runners.registry import runner_named
from verify_pr.verify.proof import rerun
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan

PLAN = SuitePlan(
    runner_named("pytest"), "python3 -m pytest --junitxml=/tmp/r.xml", "/tmp/r.xml", "pytest"
)
CUSTOM = SuitePlan(None, "sh run-tests.sh /tmp/r.xml", "/tmp/r.xml", "junit")
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
    assert found == rerun.Confirmation(True, (), (), ("m.py::m::t_bug",))
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


JEST = SuitePlan(
    runner_named("jest"), "jest --ci --json --outputFile=/work/r.json", "/work/r.json", "jest"
)


def _reps(*reps: dict[str, TestStatus]) -> SuiteOutcome:
    """One run that ran the selection once per dict, one repetition after the other."""
    cases = [
        TestCase.build(name=n, classname="m", file="m.test.js", line=1, status=s)
        for rep in reps
        for n, s in rep.items()
    ]
    return _with_cases(cases)


def _with_cases(cases: list[TestCase]) -> SuiteOutcome:
    run = outcome({})
    report = TestReport.build(format=ReportFormat.JEST_JSON, testcases=cases)
    verdict = run.verdict.model_copy(update={"testcases": report.testcases})
    return replace(run, report=report, verdict=verdict)


def _jest_head() -> SuiteOutcome:
    return _reps({"t_bug": P})


def test_jest_repeats_the_selection_in_one_process_per_side() -> None:
    runs = _Scripted([_reps(*[{"t_bug": F}] * 3), _reps(*[{"t_bug": P}] * 3)])
    proof = [_jest_head().report.testcases[0].id]
    found = rerun.confirm(JEST, BEFORE, AFTER, _jest_head(), proof, 3, runs)
    assert found == rerun.Confirmation(True, (), (), tuple(proof))
    (batch,) = runs.batches
    assert [tree for tree, _ in batch] == [BEFORE, AFTER]  # one run per side, not three
    for _tree, plan in batch:
        words = plan.command.split(" -t ", 1)[1]
        assert words.endswith("--runInBand --runTestsByPath -- m.test.js m.test.js m.test.js")


@pytest.mark.parametrize(
    ("before", "head", "standing"),
    [
        ([{"t_bug": F}, {"t_bug": P}, {"t_bug": F}], [{"t_bug": P}] * 3, "flaky"),  # passed once
        ([{"t_bug": F}] * 3, [{"t_bug": P}, {"t_bug": P}, {"t_bug": F}], "flaky"),
        ([{"t_bug": F}] * 2, [{"t_bug": P}] * 3, "unconfirmed"),  # a repetition missing
        ([{"t_bug": F}] * 3, [{"t_bug": P}] * 4, "unconfirmed"),  # one too many
        # a test named twice in its file: each repetition holds both, the worst counts
        ([{"t_bug": F}] * 6, [{"t_bug": P}] * 6, "confirmed"),
    ],
)
def test_each_repetition_inside_one_run_is_judged(before: list, head: list, standing: str) -> None:
    runs = _Scripted([_reps(*before), _reps(*head)])
    proof = [_jest_head().report.testcases[0].id]
    found = rerun.confirm(JEST, BEFORE, AFTER, _jest_head(), proof, 3, runs)
    got = "flaky" if found.flaky else "unconfirmed" if found.unconfirmed else "confirmed"
    assert got == standing


def test_a_file_that_cannot_load_on_base_counts_once_per_repetition() -> None:
    stand_in = {"m.test.js": TestStatus.ERROR}  # jest's stand-in: the file as the test name
    cases = [
        TestCase.build(name="m.test.js", classname=None, file="m.test.js", line=None, status=s)
        for rep in [stand_in] * 3
        for s in rep.values()
    ]
    before = _with_cases(cases)
    proof = [_jest_head().report.testcases[0].id]
    runs = _Scripted([before, _reps(*[{"t_bug": P}] * 3)])
    assert rerun.confirm(JEST, BEFORE, AFTER, _jest_head(), proof, 3, runs).checked
    assert rerun.confirm(JEST, BEFORE, AFTER, _jest_head(), proof, 3, runs).unconfirmed == ()
    short = _with_cases(cases[:2])
    runs = _Scripted([short, _reps(*[{"t_bug": P}] * 3)])
    assert rerun.confirm(JEST, BEFORE, AFTER, _jest_head(), proof, 3, runs).unconfirmed == tuple(
        proof
    )


def test_runners_that_run_a_file_once_keep_a_process_per_repetition() -> None:
    for runner in ("vitest", "bun", "pytest"):
        plan = SuitePlan(
            runner_named(runner), f"{runner} --out /work/r.json", "/work/r.json", runner
        )
        head = _reps({"t_bug": P})
        proof = [head.report.testcases[0].id]
        runs = _Scripted([_reps({"t_bug": F}), _reps({"t_bug": P})] * 3)
        assert rerun.confirm(plan, BEFORE, AFTER, head, proof, 3, runs).checked
        assert len(runs.batches[0]) == 6


def test_an_own_command_s_whole_re_runs_are_named_whole() -> None:
    head = {"a": P, "b": P}
    runs = _Scripted([outcome({"a": F, "b": F}), outcome(head)] * 6)
    found = _confirm(CUSTOM, ["m.py::m::a", "m.py::m::b"], runs, head)
    assert found.whole == ("m.py::m::a", "m.py::m::b")
    text = rerun.claim(["m.py::m::a", "m.py::m::b"], found.rerun, found.whole, 3)
    assert "by id" not in text and "each re-ran with the whole suite 3 time(s)" in text


def test_each_proof_file_re_runs_in_a_process_of_its_own() -> None:
    """A sibling module's import-time patch must not stand under another file's proof."""
    head = {"a": P, "b": P}
    cases = [
        TestCase.build(name=n, classname=m, file=f"{m}.py", line=1, status=P)
        for n, m in (("a", "m"), ("b", "n"))
    ]
    report = TestReport.build(format=ReportFormat.JUNIT, testcases=cases)
    head_outcome = replace(outcome(head), report=report)
    head_outcome = replace(
        head_outcome, verdict=head_outcome.verdict.model_copy(update={"testcases": tuple(cases)})
    )
    runs = _Scripted(
        [outcome({"a": F}), outcome({"a": P}), outcome({"b": F}), outcome({"b": P})] * 3
    )
    ids = ["m.py::m::a", "n.py::n::b"]
    found = rerun.confirm(PLAN, BEFORE, AFTER, head_outcome, ids, 3, runs)
    commands = [plan.command for _, plan in runs.batches[0]]
    assert all(c.endswith((" m.py::a", " n.py::b")) for c in commands), commands
    assert not any("m.py::a" in c and "n.py::b" in c for c in commands), commands
    assert len(commands) == 12  # two files, three repetitions, two sides
    assert found.whole == ()
    assert "each confirmed by id" in rerun.claim(ids, found.rerun, found.whole, 3)


def test_a_re_run_that_times_out_is_named_with_its_side_and_limit() -> None:
    # the second repetition on head times out (the helpers' runs have a 60 s limit): the
    # test is unconfirmed, and the confirmation says which re-run and after how long
    scripted = [outcome(FIXED_BASE), outcome(FIXED_HEAD)] * 3
    scripted[3] = outcome(FIXED_HEAD, status=RunStatus.TIMEOUT)
    found = _confirm(PLAN, ["m.py::m::t_bug"], _Scripted(scripted), FIXED_HEAD)
    assert found.unconfirmed == ("m.py::m::t_bug",)
    assert found.unfinished == (
        "the re-run of m.py::m::t_bug on head timed out after 60 s (the --timeout limit)",
    )
    # control: every re-run completed, nothing to name
    honest = _confirm(
        PLAN,
        ["m.py::m::t_bug"],
        _Scripted([outcome(FIXED_BASE), outcome(FIXED_HEAD)] * 3),
        FIXED_HEAD,
    )
    assert honest.unconfirmed == () and honest.unfinished == ()
