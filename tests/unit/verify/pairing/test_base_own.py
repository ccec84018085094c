"""Base's own run by id (``verify.base_own``): what the collection gives, what is selected, and
how the run by id and the collection are merged; a run short of a selected test is refused."""

from __future__ import annotations

from pathlib import Path

from tests.unit.verify.helpers import E, F, P, S, X, outcome
from verify_pr.contract import new_report_path
from verify_pr.models.report import TestStatus
from verify_pr.runners.pytest.runner import COLLECTED_MESSAGE, PytestRunner
from verify_pr.runners.registry import runner_named
from verify_pr.verify.pairing import base_own
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan


def _collection(names: list[str]) -> SuiteOutcome:
    """A collect-only run: each test skipped with the collection's message."""
    run = outcome(dict.fromkeys(names, S))
    assert run.report is not None
    cases = tuple(c.model_copy(update={"message": COLLECTED_MESSAGE}) for c in run.report.testcases)
    report = run.report.model_copy(update={"testcases": cases})
    return SuiteOutcome(run.verdict, run.run, report, run.tamper)


def test_the_collection_is_read_only_when_it_is_one() -> None:
    found = base_own.collected(_collection(["a", "b"]))
    assert found is not None and sorted(found.cases) == ["m.py::m::a", "m.py::m::b"]
    assert found.unloadable == ()
    # a report that holds a real result is not a collection: base's own run is then whole
    assert base_own.collected(outcome({"a": P})) is None
    assert base_own.collected(outcome(None)) is None


def test_selected_is_what_the_verdict_reads(tmp_path: Path) -> None:
    found = base_own.collected(_collection(["ok", "bug", "skip", "xf", "gone", "err"]))
    assert found is not None
    before = outcome({"ok": P, "bug": F, "skip": S, "xf": X, "err": P}).verdict
    head = outcome({"ok": P, "bug": P, "skip": S, "xf": X, "err": E}).verdict
    chosen = base_own.select(found, (before, head), (), tmp_path)
    assert chosen is not None
    # every test that did not pass on a side; "gone" (on neither side) and "ok" are not run
    assert sorted(i.rsplit("::", 1)[1] for i in chosen.ids) == ["bug", "err", "skip", "xf"]
    assert chosen.argv == ("m.py::bug", "m.py::skip", "m.py::xf", "m.py::err")
    # every test of a file the PR edits runs too
    edited = base_own.select(found, (before, head), ("m.py",), tmp_path)
    assert edited is not None and len(edited.ids) == 6
    # and every test below a conftest the PR changes (here the root's)
    below = base_own.select(found, (before, head), ("conftest.py",), tmp_path)
    assert below is not None and len(below.ids) == 6
    elsewhere = base_own.select(found, (before, head), ("sub/conftest.py",), tmp_path)
    assert elsewhere is not None and len(elsewhere.ids) == 4


def test_merge_lists_the_rest_as_not_run_and_refuses_a_short_run(tmp_path: Path) -> None:
    collection = _collection(["ok", "bug"])
    found = base_own.collected(collection)
    assert found is not None
    before, head = outcome({"ok": P, "bug": F}).verdict, outcome({"ok": P, "bug": P}).verdict
    chosen = base_own.select(found, (before, head), (), tmp_path)
    assert chosen is not None
    merged = base_own.merge(found, chosen, outcome({"bug": P}), collection)
    assert merged is not None and merged.report is not None
    got = {c.name: c.status for c in merged.verdict.testcases}
    assert got == {"bug": P, "ok": TestStatus.NOT_RUN}
    assert merged.verdict.totals is not None and merged.verdict.totals.total == 1  # not counted
    assert not base_own.nothing_ran(merged)
    # the run did not give a result for the selected test: no merge (whole instead)
    assert base_own.merge(found, chosen, outcome({"other": P}), collection) is None


def test_nothing_selected_is_the_collection_alone(tmp_path: Path) -> None:
    collection = _collection(["ok"])
    found = base_own.collected(collection)
    assert found is not None
    same = outcome({"ok": P}).verdict
    chosen = base_own.select(found, (same, same), (), tmp_path)
    assert chosen is not None and chosen.argv == ()
    merged = base_own.merge(found, chosen, None, collection)
    assert merged is not None and base_own.nothing_ran(merged)


def test_a_collection_plan_only_for_our_pytest_command() -> None:
    path = new_report_path(".xml")
    whole = SuitePlan(runner_named("pytest"), PytestRunner().command(path), path, "pytest")
    plan = base_own.collect_plan(whole)
    assert plan is not None and plan.command.endswith(" --collect-only")
    assert plan.report_path != whole.report_path and plan.report_path in plan.command
    assert "pytest_collection_finish" in plan.command
    custom = SuitePlan(None, "pytest --junitxml=/work/r.xml", "/work/r.xml", "junit")
    assert base_own.collect_plan(custom) is None
    jest = SuitePlan(runner_named("jest"), "npx jest", "/work/r.json", "jest")
    assert base_own.collect_plan(jest) is None


def test_a_collection_short_of_an_untouched_test_is_not_whole() -> None:
    found = base_own.collected(_collection(["a"]))
    assert found is not None
    before = outcome({"a": P, "b": P}).verdict  # b: from m.py, which the PR does not change
    assert not base_own.seems_whole(found, before, ())
    assert base_own.seems_whole(found, before, ("m.py",))  # the PR changes m.py: b may be new
    assert base_own.seems_whole(found, outcome({"a": F}).verdict, ())
