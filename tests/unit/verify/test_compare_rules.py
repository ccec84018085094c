"""Classification and the compare verdict: every transition, every rule, every verdict."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.unit.verify.helpers import outcome as _outcome
from verify_pr.models.compare import CompareResult, CompareVerdict, Transition
from verify_pr.models.report import RedFlag, ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.transitions import classify, classify_one, count
from verify_pr.models.verdict import Verdict
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify import compare as cmp
from verify_pr.verify import summary_lists
from verify_pr.verify.harness import harness_files, is_harness_path
from verify_pr.verify.suite import SuiteOutcome
from verify_pr.verify.testcases import is_load_failure, worst

P, F, E, S = TestStatus.PASSED, TestStatus.FAILED, TestStatus.ERROR, TestStatus.SKIPPED
X = TestStatus.EXPECTED_FAILURE
BASE_SHA, HEAD_SHA = "a" * 40, "b" * 40


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
    return cmp.build_result(BASE_SHA, HEAD_SHA, base, head, list(harness), strict)


def _summary(before: SuiteOutcome, head: SuiteOutcome, harness: tuple[str, ...] = ()) -> str:
    """compare_summary.md as the CLI writes it: the result and the findings of one pairing."""
    paired = cmp.pair(before, head)
    result = cmp.build_result(
        BASE_SHA, HEAD_SHA, before, head, list(harness), False, pairing=paired
    )
    return summary_lists.summary_markdown(result, paired.findings)


FIXED_BASE = {"t_bug": F, "t_ok": P}
FIXED_HEAD = {"t_bug": P, "t_ok": P}


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


@pytest.mark.parametrize(
    ("path", "harness"),
    [
        ("conftest.py", True),
        ("tests/deep/conftest.py", True),
        ("pytest.ini", True),
        ("pyproject.toml", True),
        ("setup.cfg", True),
        ("tox.ini", True),
        ("sitecustomize.py", True),
        ("lib/usercustomize.py", True),
        ("evil.pth", True),
        ("package.json", True),
        ("web/jest.config.ts", True),
        ("vitest.config.mts", True),
        ("vite.config.js", True),
        ("src/setupTests.ts", True),
        ("bunfig.toml", True),
        ("package-lock.json", True),
        ("yarn.lock", True),
        ("pnpm-lock.yaml", True),
        ("bun.lockb", True),
        ("poetry.lock", True),
        ("pytest.py", True),
        ("_pytest/x.py", True),
        ("node_modules/jest/index.js", True),
        ("calc.py", False),
        ("tests/test_calc.py", False),
        ("docs/conftest.md", False),
        ("README", False),
    ],
)
def test_harness_paths(path: str, harness: bool) -> None:
    assert is_harness_path(path) is harness


def test_harness_files_sorted_unique() -> None:
    assert harness_files(["b/conftest.py", "calc.py", "a.pth", "a.pth"]) == [
        "a.pth",
        "b/conftest.py",
    ]


def test_overlay_copies_base_and_deletes_head_only(tmp_path: Path) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    (base / "tests").mkdir(parents=True)
    (head / "tests").mkdir(parents=True)
    (base / "pytest.ini").write_text("[pytest]\n")
    (head / "pytest.ini").write_text("[pytest]\naddopts = -p evil\n")
    (head / "conftest.py").write_text("evil\n")
    (base / "tests" / "conftest.py").write_text("base\n")
    (head / "x").write_text("file where a dir should be\n")
    os.symlink("../../etc/passwd", head / "tests" / "conftest.py")
    cmp.overlay_harness(
        base, head, ["pytest.ini", "conftest.py", "tests/conftest.py", "x/conftest.py"]
    )
    assert (head / "pytest.ini").read_text() == "[pytest]\n"
    assert not (head / "conftest.py").exists()
    assert not (head / "tests" / "conftest.py").is_symlink()
    assert (head / "tests" / "conftest.py").read_text() == "base\n"
    assert (head / "x").is_file()


def _build(before: SuiteOutcome, head: SuiteOutcome, **evidence: object) -> CompareResult:
    ev = cmp.Evidence(**evidence)  # type: ignore[arg-type]
    return cmp.build_result(BASE_SHA, HEAD_SHA, before, head, [], False, evidence=ev)


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
    result = _build(before, head)
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


@pytest.mark.parametrize("strict", [False, True])
def test_harness_notes_are_reasons_that_block_verified(strict: bool) -> None:
    note = "vendor/lib: a submodule the export leaves empty"
    ev = cmp.Evidence(harness_notes=(note,))
    base, head = _outcome(FIXED_BASE), _outcome(FIXED_HEAD)
    result = cmp.build_result(BASE_SHA, HEAD_SHA, base, head, [], strict, evidence=ev)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert note in result.reasons
    # positive control: the same runs without the note are VERIFIED
    plain = cmp.build_result(BASE_SHA, HEAD_SHA, base, head, [], strict)
    assert plain.verdict is CompareVerdict.VERIFIED
