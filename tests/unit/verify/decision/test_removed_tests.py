"""A test of base gone on head, judged by its run on head (``models.removed``): the verdict's
rules, and the publish job re-deriving them from the embedded removed run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.verify.helpers import (
    HEAD_SHA,
    E,
    F,
    P,
    S,
    decided_result,
    ran_changed_code,
)
from tests.unit.verify.helpers import outcome as _outcome
from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.models.removed import RemovedStanding, RemovedTest, judge
from verify_pr.models.report import TestStatus
from verify_pr.publish.consistency import compare_problems
from verify_pr.runners.registry import runner_named
from verify_pr.verify.decision import decide as cmp
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.runs.testcases import statuses

OWN = {"t_bug": F, "t_ok": P, "t_old": P, "t_p[1-3]": P}
BEFORE = {"t_bug": F, "t_ok": P, "t_p[1-2]": F}  # the PR's tests: t_old and t_p[1-3] gone
HEAD = {"t_bug": P, "t_ok": P, "t_p[1-2]": P}


def _id(name: str) -> str:
    return f"m.py::m::{name}"


def _result(on_head: dict[str, TestStatus] | None) -> CompareResult:
    """The comparison with base's own run, and the gone tests' run on head when given."""
    before, head, own = _outcome(BEFORE), _outcome(HEAD), _outcome(OWN)
    removed_run = _outcome(on_head) if on_head is not None else None
    pairing = cmp.pair(before, head, own)
    tests = ()
    if removed_run is not None:
        tests = judge(
            pairing.findings.gone,
            statuses(removed_run.verdict),
            pairing.proofs,
            statuses(own.verdict),
        )
    return decided_result(
        before,
        head,
        base_own=own,
        edited=("m.py",),
        removed=tests,
        removed_run=removed_run,
        changed_code=ran_changed_code(before, head, own),  # what a real fix's re-runs show
        code=("x.py",),
    )


def _standings(result: CompareResult) -> dict[str, RemovedStanding]:
    return {t.id: t.standing for t in result.removed_tests}


def test_without_the_run_a_gone_test_stands_against_the_pr() -> None:
    result = _result(None)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert any("gone on head" in r and "t_old" in r for r in result.reasons), result.reasons


def test_a_rename_and_a_corrected_expectation_are_verified_and_named() -> None:
    result = _result({"t_old": P, "t_p[1-3]": F})
    assert result.verdict is CompareVerdict.VERIFIED, result.reasons
    assert _standings(result) == {
        _id("t_old"): RemovedStanding.PASSED,
        _id("t_p[1-3]"): RemovedStanding.CHANGED,
    }
    assert "changed expectations" in result.reasons[0] and "t_p[1-3]" in result.reasons[0]
    assert "none removed" not in result.reasons[0]
    assert compare_problems(result, HEAD_SHA) == []


@pytest.mark.parametrize(
    ("on_head", "needle"),
    [
        # a removed test the PR's code breaks
        ({"t_old": F, "t_p[1-3]": F}, "removes or renames fail on its code"),
        # an error outside the body is no changed expectation
        ({"t_old": P, "t_p[1-3]": E}, "removes or renames fail on its code"),
        # it did not run there (skipped, or absent): gone, as before
        ({"t_old": S, "t_p[1-3]": F}, "gone on head"),
        ({"t_p[1-3]": F}, "gone on head"),
    ],
)
def test_what_the_run_does_not_excuse_stays_not_proven(
    on_head: dict[str, TestStatus], needle: str
) -> None:
    result = _result(on_head)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert any(needle in r for r in result.reasons), result.reasons


def test_a_changed_expectation_needs_a_new_case_that_proves_the_fix() -> None:
    gone = ["f::t[1-3]", "f::u"]
    failed = {"f::t[1-3]": F, "f::u": F}
    assert [t.standing for t in judge(gone, failed, ["f::t[1-2]"], {})] == [
        RemovedStanding.CHANGED,
        RemovedStanding.FAILED,  # not parametrized: a renamed test that fails on head
    ]
    # the proof is a case base already had: not a new expectation
    assert judge(gone[:1], failed, ["f::t[1-2]"], {"f::t[1-2]": F})[0].standing is (
        RemovedStanding.FAILED
    )
    # another test's proof
    assert judge(gone[:1], failed, ["f::v[1-2]"], {})[0].standing is RemovedStanding.FAILED


@pytest.mark.parametrize(
    "forged",
    [
        # the removed run says it failed; the result calls it passed
        {"t_old": F, "t_p[1-3]": F},
        # no removed run at all
        None,
    ],
)
def test_the_publish_side_refuses_an_excuse_its_run_does_not_show(
    forged: dict[str, TestStatus] | None,
) -> None:
    honest = _result({"t_old": P, "t_p[1-3]": F})
    run = _outcome(forged).verdict if forged is not None else None
    lie = honest.model_copy(update={"removed_run": run})
    problems = compare_problems(lie, HEAD_SHA)
    assert any("claims VERIFIED although" in p and "removed" in p for p in problems), problems


def test_a_forged_standing_is_refused_even_when_the_run_excuses_nothing_else() -> None:
    honest = _result({"t_old": P, "t_p[1-3]": F})
    extra = RemovedTest(id=_id("t_ok"), on_head=P, standing=RemovedStanding.PASSED)
    lie = honest.model_copy(update={"removed_tests": (*honest.removed_tests, extra)})
    assert any("excused but their run" in p for p in compare_problems(lie, HEAD_SHA))


def test_a_test_in_a_code_path_of_the_pr_is_never_run_from_base(tmp_path: Path) -> None:
    """A doctest gone from a module the PR changes: base's version of its file is base's
    code, so running it there would judge base's code; it stays gone. Control: the same test
    in a test file runs."""
    from verify_pr.verify.pairing.removed import judge_removed
    from verify_pr.verify.runs.suite import SuitePlan

    base, after = tmp_path / "base", tmp_path / "after"
    for tree in (base, after):
        tree.mkdir()
        (tree / "m.py").write_text("x = 1\n")
    plan = SuitePlan(
        runner_named("pytest"), "python3 -m pytest --junitxml=/work/r.xml", "/work/r.xml", "junit"
    )
    ran: list[object] = []

    def run_all(jobs: list[tuple[Path, SuitePlan]]) -> list[SuiteOutcome]:
        ran.extend(jobs)
        return [_outcome({"t_old": P}) for _ in jobs]

    own = _outcome({"t_old": P})
    sides = (own, _outcome({"t_new": P}))
    args = (plan, base, after, tmp_path / "work", [_id("t_old")], sides, [])
    doctest = judge_removed(*args, ["m.py"], run_all)
    assert ran == [] and [t.standing for t in doctest.tests] == [RemovedStanding.NOT_RUN]
    (tmp_path / "work").mkdir()
    control = judge_removed(*args, [], run_all)
    assert len(ran) == 1 and [t.standing for t in control.tests] == [RemovedStanding.PASSED]
