"""The compare rules on evidence beyond the before and head runs: base's own run, flaky and
unconfirmed tests, markers, refusals, and test files that cannot load on base."""

from __future__ import annotations

import pytest

from tests.unit.verify.helpers import (
    FIXED_BASE,
    FIXED_HEAD,
    HEAD_SHA,
    E,
    F,
    P,
    S,
    decided_result,
    ran_changed_code,
)
from tests.unit.verify.helpers import compare_summary as _summary
from tests.unit.verify.helpers import outcome as _outcome
from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.models.report import RedFlag, ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.verdict import Verdict
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.runs.testcases import is_load_failure


def _build(before: SuiteOutcome, head: SuiteOutcome, **evidence: object) -> CompareResult:
    return decided_result(before, head, **evidence)


@pytest.mark.parametrize(
    ("own", "before", "head", "needle", "named"),
    [
        # a weakened or replaced test: failed on base, passes on base's code with the PR's test
        ({"t_bug": F, "t_ok": P}, FIXED_HEAD, FIXED_HEAD, "changed, not the code", "t_bug"),
        # the PR's test change deleted a test of base
        ({"t_bug": F, "t_ok": P, "t_del": P}, FIXED_BASE, FIXED_HEAD, "gone on head", "t_del"),
        # a test that passed on base's own run fails on head (the PR edited it to fail there)
        (
            {"t_bug": F, "t_ok": P},
            {"t_bug": F, "t_ok": F},
            {"t_bug": P, "t_ok": F},
            "fail on head",
            "t_ok",
        ),
        # the PR marked a test of base as expected to fail (xfail shows as skipped)
        (
            {"t_bug": F, "t_ok": P},
            {"t_bug": F, "t_ok": S},
            {"t_bug": P, "t_ok": P},
            "newly skipped",
            "t_ok",
        ),
    ],
)
def test_base_own_run_rules(
    own: dict[str, TestStatus],
    before: dict[str, TestStatus],
    head: dict[str, TestStatus],
    needle: str,
    named: str,
) -> None:
    result = _build(_outcome(before), _outcome(head), base_own=_outcome(own))
    assert result.verdict is CompareVerdict.NOT_PROVEN
    hits = [r for r in result.reasons if needle in r]
    assert hits and named in hits[0], result.reasons
    # control: the same before/head with an honest base run is not refused for that reason
    honest = _build(_outcome(before), _outcome(head), base_own=_outcome(before))
    assert not any(needle in r and named in r for r in honest.reasons)


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("flaky", ("m.py::m::t_bug",), "flaky"),
        ("unconfirmed", ("m.py::m::t_bug",), "could not be re-run by id"),
        ("markers", ("tests/test_m.py",), "expected-failure markers"),
        ("refusal", "head does not merge cleanly", "merge cleanly"),
    ],
)
def test_evidence_rules(field: str, value: object, needle: str) -> None:
    result = _build(_outcome(FIXED_BASE), _outcome(FIXED_HEAD), **{field: value})
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert any(needle in r for r in result.reasons), result.reasons
    assert _build(_outcome(FIXED_BASE), _outcome(FIXED_HEAD)).verdict is CompareVerdict.VERIFIED


def test_a_test_file_that_cannot_load_on_base_fails_there() -> None:
    stand_in = TestCase.build(
        name="tests.test_new",
        classname=None,
        file="tests/test_new.py",
        line=None,
        status=E,
        message="ImportError: cannot import name 'fixed'",
    )
    ok = TestCase.build(name="t_ok", classname="m", file="m.py", line=1, status=P)
    before = _outcome({"t_ok": P})
    cases = (*before.verdict.testcases, stand_in)
    report = TestReport.build(
        format=ReportFormat.JUNIT, testcases=cases, red_flags=(RedFlag.COLLECTION_ERROR,)
    )
    verdict = before.verdict.model_copy(
        update={"testcases": cases, "totals": report.totals, "verdict": Verdict.FAIL}
    )
    sandbox = verdict.sandbox.model_copy(update={"exit_code": 2})
    verdict = verdict.model_copy(update={"sandbox": sandbox})
    before = SuiteOutcome(verdict, SandboxRun(sandbox, b"", None), report)
    new = [
        TestCase.build(
            name=n, classname="tests.test_new", file="tests/test_new.py", line=3, status=P
        )
        for n in ("test_one", "test_two")
    ]
    head_cases = (ok, *new)
    head_report = TestReport.build(format=ReportFormat.JUNIT, testcases=head_cases)
    head = _outcome({"t_ok": P})
    head_verdict = head.verdict.model_copy(
        update={"testcases": head_cases, "totals": head_report.totals}
    )
    head = SuiteOutcome(head_verdict, head.run, head_report)
    result = decided_result(
        before, head, changed_code=ran_changed_code(before, head), code=("x.py",)
    )
    assert result.verdict is CompareVerdict.VERIFIED, result.reasons
    assert result.counts.fail_to_pass == 2 and result.counts.removed == 0
    assert {p.id for p in result.proofs} == {c.id for c in new}
    assert all("cannot import name" in (p.message or "") for p in result.proofs)
    # the embedded before run holds the expanded cases: publish's recomputation agrees
    from verify_pr.publish.consistency import compare_problems

    assert compare_problems(result, HEAD_SHA) == []


def test_summary_leads_with_the_proof_capped_and_escaped() -> None:
    evil = "<img src=x onerror=alert(1)> @maintainer | [x](http://e) " + "y" * 600
    failing = TestCase.build(
        name="t_bug", classname="m", file="m.py", line=7, status=F, message=evil
    )
    before = _outcome(FIXED_BASE)
    cases = (failing, *[c for c in before.verdict.testcases if c.name != "t_bug"])
    verdict = before.verdict.model_copy(update={"testcases": cases})
    fixed = SuiteOutcome(verdict, before.run, before.report)
    assert _build(fixed, _outcome(FIXED_HEAD)).verdict is CompareVerdict.VERIFIED
    text = _summary(fixed, _outcome(FIXED_HEAD))
    lines = text.splitlines()
    assert lines[2].startswith("**FAIL_TO_PASS** (1)")
    proof = lines[3]
    assert proof.startswith("- `m.py::m::t_bug` at `m.py:1`: ")  # where it is on head
    assert "<img" not in proof.replace("\\<img", "") and "\\<img" in proof
    assert "\\[x\\]" in proof and "@maintainer" not in proof
    assert proof.endswith(" …") and len(proof) < 600


@pytest.mark.parametrize(
    ("name", "classname", "status", "stand_in"),
    [
        ("tests.test_new", None, E, True),  # pytest collection error
        ("(test file failed to run)", None, E, True),  # jest suite that failed to load
        ("src/a.test.js", "src/a.test.js", F, True),  # vitest's stand-in
        ("adds", None, F, False),  # a top-level jest test that simply fails
        ("test_x", "tests.test_x", E, False),  # a pytest fixture error
        ("tests.test_new", None, P, False),
    ],
)
def test_load_failure_stand_ins(
    name: str, classname: str | None, status: TestStatus, stand_in: bool
) -> None:
    case = TestCase.build(name=name, classname=classname, file="f.py", line=None, status=status)
    assert is_load_failure(case) is stand_in


def test_verified_claims_re_runs_only_for_the_tests_that_were_re_run() -> None:
    # twelve tests prove the fix; the re-runs take the first ten: the reason and each proof
    # say so, never that all twelve were confirmed by id
    before = _outcome({f"t_{i:02}": F for i in range(12)})
    head = _outcome({f"t_{i:02}": P for i in range(12)})
    ids = sorted(c.id for c in head.verdict.testcases)
    result = _build(before, head, reruns=3, rerun_ids=tuple(ids[:10]))
    assert result.verdict is CompareVerdict.VERIFIED
    assert "12 test(s) fail" in result.reasons[0]
    assert (
        "the first 10 confirmed by id without the rest of the suite 3 time(s)"
        in (result.reasons[0])
    )
    assert {p.id: p.reruns for p in result.proofs} == {i: 3 if i in ids[:10] else 0 for i in ids}
    # every one re-run: "each", as before
    result = _build(before, head, reruns=3, rerun_ids=tuple(ids))
    assert "each confirmed by id" in result.reasons[0]
    assert {p.reruns for p in result.proofs} == {3}


def test_an_unconfirmed_proof_names_the_re_run_that_timed_out() -> None:
    note = "the re-run of m.py::m::t_bug on base's code with the PR's tests timed out after 60 s"
    result = _build(
        _outcome(FIXED_BASE),
        _outcome(FIXED_HEAD),
        unconfirmed=("m.py::m::t_bug",),
        unfinished=(note, "another"),
    )
    assert result.verdict is CompareVerdict.NOT_PROVEN
    (reason,) = [r for r in result.reasons if "could not be re-run by id" in r]
    assert reason == (
        f"1 FAIL_TO_PASS test(s) could not be re-run by id: m.py::m::t_bug ({note}; "
        "1 more re-run(s) did not complete)"
    )
    # without a re-run that gave no result (a selection that found nothing), no cause is named
    plain = _build(_outcome(FIXED_BASE), _outcome(FIXED_HEAD), unconfirmed=("m.py::m::t_bug",))
    assert "could not be re-run by id: m.py::m::t_bug" in plain.reasons[-1]
    assert "timed out" not in plain.reasons[-1]
