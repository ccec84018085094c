"""Classification and the compare verdict: every transition, every rule, every verdict.

The harness paths are in ../harness/test_compare_rules_harness.py; the rules on the evidence
beyond the two runs (base's own run, flakiness, files that cannot load) in
test_compare_rules_evidence.py."""

from __future__ import annotations

import re

import pytest

from tests.unit.verify.helpers import (
    FIXED_BASE,
    FIXED_HEAD,
    E,
    F,
    P,
    S,
    X,
    decided_result,
)
from tests.unit.verify.helpers import compare_summary as _summary
from tests.unit.verify.helpers import outcome as _outcome
from verify_pr.models.compare import CompareResult, CompareVerdict, Transition
from verify_pr.models.report import RedFlag, ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.transitions import classify, classify_one, count
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.runs.testcases import worst


@pytest.mark.parametrize(
    ("base", "head", "expected"),
    [
        (F, P, Transition.FAIL_TO_PASS),
        (E, P, Transition.FAIL_TO_PASS),
        (P, P, Transition.PASS_TO_PASS),
        (P, F, Transition.PASS_TO_FAIL),
        (P, E, Transition.PASS_TO_FAIL),
        (F, F, Transition.FAIL_TO_FAIL),
        (E, F, Transition.FAIL_TO_FAIL),
        (None, P, Transition.ADDED),
        (None, F, Transition.ADDED),
        (P, None, Transition.REMOVED),
        (F, None, Transition.REMOVED),
        (P, S, Transition.SKIPPED),
        (S, P, Transition.SKIPPED),
        (S, S, Transition.SKIPPED),
        (F, S, Transition.SKIPPED),
    ],
)
def test_classify_one(
    base: TestStatus | None, head: TestStatus | None, expected: Transition
) -> None:
    assert classify_one(base, head) is expected


def test_every_transition_is_reachable_and_counted() -> None:
    base = {"a": F, "b": P, "c": P, "d": F, "f": P, "g": P, "h": P}
    head = {"a": P, "b": P, "c": F, "d": F, "e": P, "g": S, "h": X}
    transitions = classify(base, head)
    assert {t.transition for t in transitions} == set(Transition)
    counts = count(transitions)
    assert counts.model_dump() == dict.fromkeys(
        ("fail_to_pass", "pass_to_pass", "pass_to_fail", "fail_to_fail", "added", "removed"),
        1,
    ) | {"skipped": 1, "expected_failure": 1}
    with pytest.raises(ValueError, match="at least one side"):
        classify_one(None, None)


def test_pairing_uses_worst_status_per_id() -> None:
    cases = [
        TestCase.build(name="t", classname="m", file="m.py", line=1, status=P),
        TestCase.build(name="t", classname="m", file="m.py", line=1, status=E),
    ]
    report = TestReport.build(format=ReportFormat.JUNIT, testcases=cases)
    assert worst(report) == {"m.py::m::t": E}
    assert worst(None) == {}


def _result(
    base: SuiteOutcome,
    head: SuiteOutcome,
    harness: tuple[str, ...] = (),
    strict: bool = False,
) -> CompareResult:
    return decided_result(base, head, harness, strict)


def test_verified_needs_everything() -> None:
    result = _result(_outcome(FIXED_BASE), _outcome(FIXED_HEAD))
    assert result.verdict is CompareVerdict.VERIFIED
    assert result.counts.fail_to_pass == 1
    CompareResult.model_validate_json(result.model_dump_json())  # round-trips strictly


def test_mutation_swapped_base_and_head_is_not_verified() -> None:
    result = _result(_outcome(FIXED_HEAD), _outcome(FIXED_BASE))
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert result.counts.pass_to_fail == 1


@pytest.mark.parametrize(
    ("base", "head", "harness", "strict", "needle"),
    [
        (_outcome({"t": F}), _outcome({"t": F}), (), False, "does not show what the PR fixes"),
        (_outcome({"t": F}), _outcome({"t": F}), (), False, "does not pass on both sides"),
        (
            _outcome(FIXED_BASE),
            _outcome({"t_bug": P, "t_ok": F}),
            (),
            False,
            "pass on base and fail on head",
        ),
        (
            _outcome({"t_bug": F, "t_ok": P, "t_gone": P}),
            _outcome(FIXED_HEAD),
            (),
            False,
            "gone on head",
        ),
        (
            _outcome(FIXED_BASE),
            _outcome({"t_bug": P, "t_ok": S}),
            (),
            False,
            "newly skipped",
        ),
        (
            _outcome(FIXED_BASE),
            _outcome({"t_bug": P, "t_ok": X}),
            (),
            False,
            "newly expected to fail",
        ),
        (_outcome({}), _outcome({}), (), False, "zero tests on both sides"),
        (_outcome(FIXED_BASE), _outcome({}), (), False, "head run executed zero tests"),
        (
            _outcome(FIXED_BASE),
            _outcome(FIXED_HEAD),
            ("conftest.py",),
            False,
            "judge it (conftest.py)",
        ),
        (
            _outcome(FIXED_BASE),
            _outcome(FIXED_HEAD, status=RunStatus.TIMEOUT),
            (),
            False,
            "head run timed out",
        ),
        (
            _outcome(FIXED_BASE, status=RunStatus.ERROR),
            _outcome(FIXED_HEAD),
            (),
            False,
            "base run did not complete",
        ),
        (_outcome(FIXED_BASE), _outcome(None), (), False, "head run has no usable report"),
        (
            # the before run may not load a new test file (that is its failure); head may not
            _outcome(FIXED_BASE),
            _outcome(FIXED_HEAD, flags=(RedFlag.COLLECTION_ERROR,)),
            (),
            False,
            "head report shows red flags: collection error",
        ),
        (
            _outcome(FIXED_BASE, exit_code=0),
            _outcome(FIXED_HEAD),
            (),
            False,
            "base runner exited 0 despite failing",
        ),
        (
            _outcome(FIXED_BASE),
            _outcome(FIXED_HEAD, exit_code=1),
            (),
            False,
            "exit code and report disagree",
        ),
        (
            _outcome(FIXED_BASE),
            _outcome(FIXED_HEAD, tamper=("addopts loads plugin 'x'",)),
            (),
            True,
            "head adds harness tamper signals",
        ),
    ],
)
def test_each_rule_gives_not_proven_with_a_reason(
    base: SuiteOutcome,
    head: SuiteOutcome,
    harness: tuple[str, ...],
    strict: bool,
    needle: str,
) -> None:
    result = _result(base, head, harness, strict)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert any(needle in reason for reason in result.reasons), result.reasons


def test_strict_harness_allows_verified_with_harness_changes() -> None:
    result = _result(_outcome(FIXED_BASE), _outcome(FIXED_HEAD), ("conftest.py",), True)
    assert result.verdict is CompareVerdict.VERIFIED
    assert result.harness_files_changed == ("conftest.py",)


def test_tamper_signals_already_on_base_do_not_block() -> None:
    signal = ("1 conftest.py file(s) (conftest.py) run inside pytest",)
    result = _result(_outcome(FIXED_BASE, tamper=signal), _outcome(FIXED_HEAD, tamper=signal))
    assert result.verdict is CompareVerdict.VERIFIED


@pytest.mark.parametrize("side", ["base", "head"])
def test_blocked_sandbox_is_blocked_never_a_verdict(side: str) -> None:
    blocked = _outcome(None, status=RunStatus.BLOCKED)
    base = blocked if side == "base" else _outcome(FIXED_BASE)
    head = blocked if side == "head" else _outcome(FIXED_HEAD)
    result = _result(base, head)
    assert result.verdict is CompareVerdict.BLOCKED
    assert result.reasons == (f"the {side} sandbox was blocked: the run was BLOCKED",)


def test_every_verdict_has_an_exit_code_and_a_summary_title() -> None:
    from verify_pr.verify.cli import COMPARE_EXIT_CODES

    assert COMPARE_EXIT_CODES == {
        CompareVerdict.VERIFIED: 0,
        CompareVerdict.NOTHING_TO_PROVE: 0,
        CompareVerdict.NOT_PROVEN: 4,
        CompareVerdict.BLOCKED: 3,
    }
    outcomes = {
        CompareVerdict.VERIFIED: (_outcome(FIXED_BASE), _outcome(FIXED_HEAD)),
        CompareVerdict.NOTHING_TO_PROVE: (_outcome(FIXED_HEAD), _outcome(FIXED_HEAD)),
        CompareVerdict.NOT_PROVEN: (_outcome(FIXED_HEAD), _outcome(FIXED_BASE)),
        CompareVerdict.BLOCKED: (_outcome(None, status=RunStatus.BLOCKED), _outcome(FIXED_HEAD)),
    }
    for verdict, (base, head) in outcomes.items():
        text = _summary(base, head)
        assert text.startswith(f"## verify-pr compare: {verdict.value.replace('_', ' ')}")


def test_summary_escapes_untrusted_test_ids() -> None:
    evil = "<img src=x onerror=alert(1)>`|[link](http://x)"
    base = _outcome({evil: F})
    head = _outcome({evil: P})
    text = _summary(base, head, ("a|b<script>.pth",))
    assert "\\<script\\>" in text  # escaped in the reason text
    for line in text.splitlines():
        if re.search(r"(?<!\\)<", line):  # a raw "<" only inside a code span
            assert line.startswith("- `"), line
