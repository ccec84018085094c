"""NOTHING TO PROVE (issue 23.4): a clean comparison of a PR that fixes nothing, never a proof.

The honest twins (a docs change, a refactor: the suite passes on both sides, no test of base
changed) get it; each way to hide a break behind a suite that passes on both sides keeps NOT
PROVEN, with the reason said. The publish side re-derives the same rules from the result file.
"""

from __future__ import annotations

import pytest

from tests.unit.verify.helpers import decided_result, outcome
from verify_pr.exit_codes import CompareExit, compare_exit_codes
from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.models.report import TestStatus
from verify_pr.publish.consistency import compare_problems
from verify_pr.verify.runs.suite import SuiteOutcome

P, F, S, X = (
    TestStatus.PASSED,
    TestStatus.FAILED,
    TestStatus.SKIPPED,
    TestStatus.EXPECTED_FAILURE,
)
BASE_SHA, HEAD_SHA = "a" * 40, "b" * 40
CLEAN = {"t_a": P, "t_b": P}


def _build(
    before: SuiteOutcome,
    head: SuiteOutcome,
    harness: tuple[str, ...] = (),
    strict: bool = False,
    evidence: dict[str, object] | None = None,
) -> CompareResult:
    return decided_result(before, head, harness, strict, **(evidence or {}))


def test_a_clean_pr_that_fixes_nothing_has_nothing_to_prove() -> None:
    result = _build(outcome(CLEAN), outcome(CLEAN))
    assert result.verdict is CompareVerdict.NOTHING_TO_PROVE
    (reason,) = result.reasons
    assert reason.startswith("no test goes from failing to passing, and nothing that passed")
    assert "2 test(s) pass on base's code and on head" in reason
    assert compare_exit_codes()[result.verdict] is CompareExit.NOTHING_TO_PROVE
    assert CompareExit.NOTHING_TO_PROVE.value == 0
    assert compare_problems(result, HEAD_SHA) == []  # the publish side agrees


def test_documentation_changes_are_clean() -> None:
    others = ("README.md", "docs/guide.rst", "docs/api.markdown", "NOTES.adoc")
    result = _build(outcome(CLEAN), outcome(CLEAN), evidence={"others": others})
    assert result.verdict is CompareVerdict.NOTHING_TO_PROVE, result.reasons


def test_new_tests_that_pass_on_both_sides_and_tests_skipped_on_both_are_clean() -> None:
    """A PR may add tests (they ran on both sides) and leave base's skips as they were."""
    both = {**CLEAN, "t_new": P, "t_skip": S, "t_xfail": X}
    result = _build(outcome(both), outcome({**both, "t_head_only": P}))
    assert result.verdict is CompareVerdict.NOTHING_TO_PROVE, result.reasons
    assert compare_problems(result, HEAD_SHA) == []


@pytest.mark.parametrize(
    ("before", "head", "extra", "needle"),
    [
        # a test failing on both sides can hide a new failure behind the old one
        ({**CLEAN, "t_bad": F}, {**CLEAN, "t_bad": F}, {}, "does not pass on both sides"),
        ({**CLEAN, "t_x": P}, {**CLEAN, "t_x": F}, {}, "pass on base and fail on head"),
        ({**CLEAN, "t_x": P}, CLEAN, {}, "gone on head"),
        ({**CLEAN, "t_x": P}, {**CLEAN, "t_x": S}, {}, "newly skipped"),
        ({**CLEAN, "t_x": P}, {**CLEAN, "t_x": X}, {}, "newly expected to fail"),
        ({**CLEAN, "t_x": P}, {**CLEAN, "t_new": F, "t_x": P}, {}, "new on head fail"),
        # the PR changed a test of base (base's own run was needed): the weakened-test attack
        (
            CLEAN,
            CLEAN,
            {"base_own": outcome(CLEAN), "edited": ("tests/test_m.py",)},
            "changes test paths of base",
        ),
        # a data file changed: base's own run shows a test it breaks on both sides
        (
            {**CLEAN, "t_x": F},
            {**CLEAN, "t_x": F},
            {"base_own": outcome({**CLEAN, "t_x": P}), "others": ("data/x.json",)},
            "pass on base and fail on head",
        ),
        (CLEAN, CLEAN, {"markers": ("tests/test_m.py",)}, "expected-failure markers"),
        # a doctest rewritten with its code, a doctest text file rewritten, a moved test
        (CLEAN, CLEAN, {"mixed": ("calc.py",)}, "files that hold tests (calc.py)"),
        (CLEAN, CLEAN, {"tested": ("README.md",)}, "files that hold tests (README.md)"),
        (CLEAN, CLEAN, {"late_tests": ("src/checks.py",)}, "files that hold tests (src/checks"),
        # data the tests may read, in the PR's version on both sides (a weakened tolerance)
        (CLEAN, CLEAN, {"others": ("README.md", "data/tol.json")}, "neither test nor code"),
        (CLEAN, CLEAN, {"others": ("CHANGES.txt",)}, "(CHANGES.txt)"),
        (CLEAN, CLEAN, {"notes": ("a submodule is empty",)}, "a submodule is empty"),
        (CLEAN, CLEAN, {"refusal": "head does not merge cleanly"}, "merge cleanly"),
    ],
)
def test_what_could_hide_a_break_keeps_not_proven(
    before: dict[str, TestStatus],
    head: dict[str, TestStatus],
    extra: dict[str, object],
    needle: str,
) -> None:
    result = _build(outcome(before), outcome(head), evidence=extra)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert any(needle in r for r in result.reasons), result.reasons


@pytest.mark.parametrize("strict", [False, True])
def test_a_harness_change_keeps_not_proven_even_with_strict_harness(strict: bool) -> None:
    """With strict harness head's tests ran with base's harness: the PR's was never run."""
    result = _build(outcome(CLEAN), outcome(CLEAN), ("conftest.py",), strict)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    needle = "harness file(s) (conftest.py)" if strict else "judge it (conftest.py)"
    assert any(needle in r for r in result.reasons), result.reasons


def test_new_tamper_signals_keep_not_proven() -> None:
    head = outcome(CLEAN, tamper=("addopts loads plugin 'x'",))
    result = _build(outcome(CLEAN), head)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert any("tamper signals" in r for r in result.reasons), result.reasons


def test_a_real_fix_is_still_verified_never_nothing_to_prove() -> None:
    result = _build(outcome({**CLEAN, "t_bug": F}), outcome({**CLEAN, "t_bug": P}))
    assert result.verdict is CompareVerdict.VERIFIED


@pytest.mark.parametrize(
    "update",
    [
        {"verdict": CompareVerdict.NOTHING_TO_PROVE},
        {"base_own": outcome(CLEAN).verdict, "edited_test_paths": ("tests/test_m.py",)},
        {"other_paths": ("data/x.json",)},
        {"harness_files_changed": ("conftest.py",), "strict_harness": True},
        {"test_changed": ("m.py::m::t_a",)},
        {"flaky": ("m.py::m::t_a",)},
    ],
)
def test_the_publish_side_refuses_a_forged_nothing_to_prove(update: dict[str, object]) -> None:
    """A NOT PROVEN over a regression relabelled, or a clean one with evidence against it."""
    regressed = _build(outcome({**CLEAN, "t_x": P}), outcome({**CLEAN, "t_x": F}))
    clean = _build(outcome(CLEAN), outcome(CLEAN))
    source = regressed if update.keys() == {"verdict"} else clean
    forged = source.model_copy(update={"verdict": CompareVerdict.NOTHING_TO_PROVE, **update})
    problems = compare_problems(forged, HEAD_SHA)
    assert problems and all("claims NOTHING_TO_PROVE although" in p for p in problems), problems
