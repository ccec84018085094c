"""Base's own run by id (``verify.base_own``): what the collection gives, what is selected, and
how the run by id and the collection are merged; a run short of a selected test is refused."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

from tests.unit.verify.helpers import E, F, P, S, X, outcome
from verify_pr.contract import new_report_path
from verify_pr.models.report import RedFlag, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.verdict import Verdict
from verify_pr.runners.base import COLLECTED_MARKED
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


def test_the_collection_names_the_tests_marked_to_skip_or_fail(tmp_path: Path) -> None:
    collection = _collection(["plain", "marked"])
    assert collection.report is not None
    cases = tuple(
        c.model_copy(update={"message": COLLECTED_MESSAGE + COLLECTED_MARKED})
        if c.name == "marked"
        else c
        for c in collection.report.testcases
    )
    found = base_own.collected(
        replace(collection, report=collection.report.model_copy(update={"testcases": cases}))
    )
    assert found is not None and sorted(found.cases) == ["m.py::m::marked", "m.py::m::plain"]
    assert found.marked == frozenset({"m.py::m::marked"})
    # the marked ones are selected with the edited files' (none here), before any side is known
    early = base_own.select(found, (), (), tmp_path, found.marked)
    assert early is not None and early.ids == ("m.py::m::marked",)
    assert base_own.select(found, (), (), tmp_path) == base_own.Selection((), (), ())
    # another message after the collection's is not the collection's: base's own run is whole
    odd = tuple(c.model_copy(update={"message": COLLECTED_MESSAGE + " (other)"}) for c in cases)
    assert (
        base_own.collected(
            replace(collection, report=collection.report.model_copy(update={"testcases": odd}))
        )
        is None
    )


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


def test_the_rest_of_a_selection_beyond_the_edited_files_run() -> None:
    # the edited file's run (started when the collection ended) and what before and head add
    first = base_own.Selection(("t.py::a",), ("bad.py",), ("t.py::a", "bad.py"), ("t.py::a",))
    whole = base_own.Selection(
        ("t.py::a", "u.py::s"),
        ("bad.py",),
        ("t.py::a", "u.py::s", "bad.py"),
        ("t.py::a", "u.py::s"),
    )
    second = base_own.rest(whole, first)
    assert second is not None
    assert (second.ids, second.files, second.argv) == (("u.py::s",), (), ("u.py::s",))
    # nothing beyond: no second process
    alone = base_own.rest(first, first)
    assert alone is not None and alone.argv == ()
    # a word of the rest that the first process runs too (two ids, one node): one process
    shared = base_own.Selection(
        ("t.py::a", "t.py::a2"), ("bad.py",), ("t.py::a", "bad.py"), ("t.py::a", "t.py::a")
    )
    assert base_own.rest(shared, first) is None
    # the two run different files base could not load: one process
    assert base_own.rest(replace(whole, files=()), first) is None
    # the first holds a test the selection does not (marked, yet it passed on both sides): it
    # stays run, and the rest is the selection's other tests
    beyond = base_own.rest(replace(whole, ids=("u.py::s",), words=("u.py::s",)), first)
    assert beyond is not None and (beyond.ids, beyond.argv) == (("u.py::s",), ("u.py::s",))


def test_two_processes_join_as_the_run_that_failed() -> None:
    joined = base_own.joined(outcome({"a": P}), outcome({"b": F}))
    assert joined is not None and joined.report is not None
    assert {c.name: c.status for c in joined.report.testcases} == {"a": P, "b": F}
    # the failing process's verdict and exit code: the pair failed as one run would
    assert joined.verdict.verdict is Verdict.FAIL and joined.verdict.sandbox.exit_code == 1
    assert joined.report.totals.total == 2
    passing = base_own.joined(outcome({"a": P}), outcome({"b": S}))
    assert passing is not None and passing.verdict.sandbox.exit_code == 0
    # never joined: a process that did not complete, a test both ran, a load failure later
    assert base_own.joined(outcome({"a": P}), outcome({"b": P}, status=RunStatus.TIMEOUT)) is None
    assert base_own.joined(outcome({"a": P}), outcome(None)) is None
    assert base_own.joined(outcome({"a": P}), outcome({"a": F})) is None
    # a process of skipped tests only (NOT_PROVEN alone: nothing executed) is decided by the
    # other's tests, as one process over both would be
    skips = _not_proven(outcome({"b": S}))
    joined_skips = base_own.joined(outcome({"a": P}), skips)
    assert joined_skips is not None and joined_skips.verdict.verdict is Verdict.PASS
    # NOT_PROVEN for anything else (a red flag, an exit code that disagrees) is never joined
    flagged = _not_proven(outcome({"b": S}, flags=(RedFlag.LOAD_ERROR,)))
    assert base_own.joined(outcome({"a": P}), flagged) is None
    assert base_own.joined(outcome({"a": P}), _not_proven(outcome({"b": S}, exit_code=3))) is None
    assert base_own.joined(_not_proven(outcome({"a": P})), outcome({"b": P})) is None


def _not_proven(run: SuiteOutcome) -> SuiteOutcome:
    return replace(run, verdict=run.verdict.model_copy(update={"verdict": Verdict.NOT_PROVEN}))


class _Pool:
    """The compare pool's submit, run at once: each job's plan gives its outcome."""

    def __init__(self, outcomes: dict[str, SuiteOutcome]) -> None:
        self.outcomes = outcomes  # by what the plan's command ends with
        self.jobs: list[str] = []

    def submit(self, job: tuple[Path, SuitePlan]) -> Future[SuiteOutcome]:
        _tree, plan = job
        tail = next((k for k in self.outcomes if plan.command.endswith(k)), plan.command)
        self.jobs.append(tail)
        done: Future[SuiteOutcome] = Future()
        done.set_result(self.outcomes[tail])
        return done


FILES = {"e1": "e.py", "e2": "e.py", "ok": "m.py", "skip": "m.py"}


def _own_run(tmp_path: Path, edited: tuple[str, ...], pool: _Pool) -> base_own.OwnRun:
    path = new_report_path(".xml")
    whole = SuitePlan(runner_named("pytest"), PytestRunner().command(path), path, "pytest")
    own = base_own.OwnRun(whole, tmp_path, edited, edited)
    first: Future[SuiteOutcome] = Future()
    own.started(first, pool.submit)
    assert pool.jobs == []  # nothing before the collection has ended
    first.set_result(pool.outcomes[" --collect-only"])
    return own


def _with_files(names: list[str]) -> SuiteOutcome:
    run = _collection(names)
    assert run.report is not None
    cases = tuple(
        case.model_copy(update={"file": test.file, "classname": test.classname, "id": test.id})
        for case, test in zip(
            run.report.testcases, _ran(dict.fromkeys(names, S)).verdict.testcases, strict=True
        )
    )
    return SuiteOutcome(run.verdict, run.run, run.report.model_copy(update={"testcases": cases}))


def _ran(statuses: dict[str, TestStatus]) -> SuiteOutcome:
    return outcome(statuses, files=FILES)


def test_the_edited_files_tests_start_when_the_collection_ends(tmp_path: Path) -> None:
    early = _ran({"e1": P, "e2": F})
    rest = _ran({"skip": S})
    pool = _Pool(
        {
            " --collect-only": _with_files(["e1", "e2", "ok", "skip"]),
            "e.py::e1 e.py::e2": early,
            "-- m.py::skip": rest,
        }
    )
    own = _own_run(tmp_path, ("e.py",), pool)
    # the collection's end started the edited file's tests, before before and head ended
    assert pool.jobs == ["e.py::e1 e.py::e2"]
    before = _ran({"e1": F, "e2": F, "ok": P, "skip": S})
    head = _ran({"e1": P, "e2": F, "ok": P, "skip": S})
    own.submit((before, head), pool.submit)
    # what before and head add (a test skipped in a file the PR does not edit): a second process
    assert pool.jobs == ["e.py::e1 e.py::e2", "-- m.py::skip"]
    merged = own.result()
    got = {c.name: c.status for c in merged.verdict.testcases}
    assert got == {"e1": P, "e2": F, "skip": S, "ok": TestStatus.NOT_RUN}
    assert merged.verdict.sandbox.exit_code == 1  # the process that failed


def test_one_process_when_the_edited_files_hold_it_all(tmp_path: Path) -> None:
    pool = _Pool(
        {" --collect-only": _with_files(["e1", "e2", "ok"]), "e.py::e1 e.py::e2": _ran({"e1": P})}
    )
    pool.outcomes["e.py::e1 e.py::e2"] = _ran({"e1": P, "e2": P})
    own = _own_run(tmp_path, ("e.py",), pool)
    same = _ran({"e1": P, "e2": P, "ok": P})
    own.submit((_ran({"e1": F, "e2": P, "ok": P}), same), pool.submit)
    assert pool.jobs == ["e.py::e1 e.py::e2"]  # no second process: nothing beyond the first
    assert {c.name: c.status for c in own.result().verdict.testcases}["ok"] is TestStatus.NOT_RUN


def test_nothing_edited_starts_nothing_early(tmp_path: Path) -> None:
    pool = _Pool({" --collect-only": _with_files(["ok", "skip"]), "-- m.py::skip": _ran({})})
    pool.outcomes["-- m.py::skip"] = _ran({"skip": S})
    own = _own_run(tmp_path, (), pool)
    assert pool.jobs == []
    sides = _ran({"ok": P, "skip": S})
    own.submit((sides, sides), pool.submit)
    assert pool.jobs == ["-- m.py::skip"]


def _marking(run: SuiteOutcome, names: set[str]) -> SuiteOutcome:
    """The collection with ``names`` marked to be skipped or to fail."""
    assert run.report is not None
    cases = tuple(
        c.model_copy(update={"message": COLLECTED_MESSAGE + COLLECTED_MARKED})
        if c.name in names
        else c
        for c in run.report.testcases
    )
    return replace(run, report=run.report.model_copy(update={"testcases": cases}))


def test_the_marked_tests_start_with_the_edited_files(tmp_path: Path) -> None:
    early = _ran({"e1": P, "skip": S})
    pool = _Pool(
        {
            " --collect-only": _marking(_with_files(["e1", "ok", "skip"]), {"skip"}),
            "-- e.py::e1 m.py::skip": early,
        }
    )
    own = _own_run(tmp_path, ("e.py",), pool)
    assert pool.jobs == ["-- e.py::e1 m.py::skip"]  # with the edited file's, at once
    own.submit(
        (_ran({"e1": F, "ok": P, "skip": S}), _ran({"e1": P, "ok": P, "skip": S})), pool.submit
    )
    assert pool.jobs == ["-- e.py::e1 m.py::skip"]  # the sides name nothing more: one process
    result = own.result()
    assert result.report is not None
    assert {c.name: c.status for c in result.report.testcases} == {
        "e1": P,
        "skip": S,
        "ok": TestStatus.NOT_RUN,
    }


def test_a_run_submitted_after_the_sides_is_one_process_with_the_marked_ones(
    tmp_path: Path,
) -> None:
    """Base's own run needed only once before and head have ended (nothing edited): it knows
    all it will run, so nothing is split off early."""
    path = new_report_path(".xml")
    whole = SuitePlan(runner_named("pytest"), PytestRunner().command(path), path, "pytest")
    pool = _Pool(
        {
            " --collect-only": _marking(_with_files(["ok", "skip", "bad"]), {"skip"}),
            "-- m.py::skip m.py::bad": _ran({"skip": S, "bad": P}),
        }
    )
    own = base_own.OwnRun(whole, tmp_path, (), ())
    sides = _ran({"ok": P, "skip": S, "bad": F})
    own.submit((sides, sides), pool.submit)
    assert pool.jobs == [" --collect-only", "-- m.py::skip m.py::bad"]


def test_a_collection_that_rules_out_a_run_by_id_starts_the_whole_run_once(
    tmp_path: Path,
) -> None:
    whole = _ran({"e1": P, "ok": P})
    # not a collection (a result in it): base's own run will be whole whatever the sides show
    pool = _Pool({" --collect-only": _ran({"e1": P}), "junit_family=xunit1": whole})
    own = _own_run(tmp_path, ("e.py",), pool)
    assert pool.jobs == ["junit_family=xunit1"]  # started when the collection ended
    own.submit((_ran({"e1": F, "ok": P}), whole), pool.submit)
    assert pool.jobs == ["junit_family=xunit1"]  # and not again
    assert own.result() is whole
