"""A head run with a test file that cannot load: VERIFIED only when that file never loaded before
the PR either (``verify.unloaded``), and the publish job re-derives the same from the artifact.

Each case that must stay NOT PROVEN is one change away from the honest comparison that is
VERIFIED (``test_a_file_that_never_loaded_is_forgiven``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from tests.unit.verify.helpers import HEAD_SHA, box, decided_result, ran_changed_code
from verify_pr.models.compare import MAX_LISTED_PATHS, CompareResult, CompareVerdict
from verify_pr.models.loadfail import names_path
from verify_pr.models.report import RedFlag, ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.publish.consistency import compare_problems
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify.pairing import unloaded
from verify_pr.verify.runs.missing_deps import NOT_PROVEN_PREFIX
from verify_pr.verify.runs.suite import SuiteOutcome

P, F, E = TestStatus.PASSED, TestStatus.FAILED, TestStatus.ERROR
STALE = "lib/mjs/Mock.spec.js"
SYNTAX = "SyntaxError: Cannot use import statement outside a module"
LOADS = (RedFlag.LOAD_ERROR, RedFlag.RUNTIME_ERROR_SUITES)
CHANGED = ("lib/Mock.js", "lib/Mock.spec.js", "package.json")


def _test(name: str, status: TestStatus, file: str = "lib/Mock.spec.js") -> TestCase:
    return TestCase.build(name=name, classname="mock", file=file, line=1, status=status)


def _stand_in(file: str | None = STALE, message: str = SYNTAX) -> TestCase:
    return TestCase.build(
        name="(test file failed to run)",
        classname=None,
        file=file,
        line=None,
        status=E,
        message=message,
    )


def _run(
    cases: Sequence[TestCase],
    flags: Sequence[RedFlag] = (),
    *,
    verdict: Verdict | None = None,
    reasons: tuple[str, ...] = ("r",),
    status: RunStatus = RunStatus.COMPLETED,
) -> SuiteOutcome:
    report = TestReport.build(
        format=ReportFormat.JEST_JSON, testcases=list(cases), red_flags=list(flags)
    )
    failing = any(c.status in (F, E) for c in cases)
    ran = status is RunStatus.COMPLETED
    sandbox = box(status, (1 if failing else 0) if ran else None)
    told = verdict or (Verdict.FAIL if failing else Verdict.PASS)
    if not ran:
        told = Verdict.BLOCKED if status is RunStatus.BLOCKED else Verdict.NOT_PROVEN
    file = VerdictFile(
        verdict=told,
        reasons=reasons,
        runner="jest",
        runner_version=None,
        command="jest",
        totals=report.totals if ran else None,
        testcases=report.testcases if ran else (),
        sandbox=sandbox,
    )
    return SuiteOutcome(file, SandboxRun(sandbox, b"", None), report if ran else None)


BEFORE = _run([_test("bug", F), _test("ok", P), _stand_in()], LOADS)
HEAD = _run([_test("bug", P), _test("ok", P), _stand_in()], LOADS)
OWN = _run([_test("ok", P), _stand_in()], LOADS)


def _compare(
    before: SuiteOutcome = BEFORE,
    head: SuiteOutcome = HEAD,
    own: SuiteOutcome | None = OWN,
    changed: tuple[str, ...] | None = CHANGED,
) -> CompareResult:
    return decided_result(
        before,
        head,
        base_own=own,
        changed=changed,
        changed_code=ran_changed_code(before, head, own, CHANGED[0]),
        tests=CHANGED[1:],
        code=CHANGED[:1],
    )


def test_a_file_that_never_loaded_is_forgiven() -> None:
    result = _compare()
    assert result.verdict is CompareVerdict.VERIFIED, result.reasons
    assert [p.id for p in result.proofs] == ["lib/Mock.spec.js::mock::bug"]
    assert compare_problems(result, HEAD_SHA) == []


def _not_proven(result: CompareResult, *needles: str) -> None:
    assert result.verdict is CompareVerdict.NOT_PROVEN, result.reasons
    named = [r for r in result.reasons if STALE in r]
    assert named, result.reasons
    for needle in needles:
        assert any(needle in r for r in named), result.reasons


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        # the attack: the PR breaks the import of a file that loads on base
        ({"own": _run([_test("ok", P), _test("hidden", P, STALE)])}, "loads in base's own run"),
        ({"own": None}, "base's own run did not run"),
        ({"changed": None}, "changed paths are not known"),
        ({"changed": (*CHANGED, STALE)}, "the PR changes it"),
        # the PR's code makes the file fail another way
        (
            {
                "head": _run(
                    [_test("bug", P), _test("ok", P), _stand_in(message="TypeError")], LOADS
                )
            },
            "another error than in base's own run",
        ),
        # the PR's test helper (in the before run too) made it fail: base's own run loads it
        (
            {"before": _run([_test("bug", F), _test("ok", P), _stand_in(message="x")], LOADS)},
            "another error than on base's code with the PR's tests",
        ),
        ({"before": _run([_test("bug", F), _test("ok", P)])}, "loads on base's code"),
        # the same error, but thrown from a module the PR changes
        (
            {
                "head": _run([_test("bug", P), _stand_in(message=f"at (lib/Mock.js:3) {SYNTAX}")]),
                "own": _run([_stand_in(message=f"at (lib/Mock.js:3) {SYNTAX}")], LOADS),
                "before": _run(
                    [_test("bug", F), _stand_in(message=f"at (lib/Mock.js:3) {SYNTAX}")]
                ),
            },
            "names lib/Mock.js",
        ),
        # base's own run gave no report to match against
        ({"own": _run([], status=RunStatus.TIMEOUT)}, "no report"),
    ],
)
def test_a_load_failure_not_shown_to_predate_the_pr_stays_refused(
    kwargs: dict[str, object], needle: str
) -> None:
    if "head" in kwargs and "own" in kwargs:  # the head run of that case needs its flags
        head = kwargs["head"]
        assert isinstance(head, SuiteOutcome) and head.report is not None
        flagged = head.report.model_copy(update={"red_flags": LOADS})
        kwargs["head"] = replace(head, report=flagged)
    _not_proven(_compare(**kwargs), needle)  # type: ignore[arg-type]


def test_a_load_failure_of_a_file_that_loads_on_base_is_refused_by_publish_too() -> None:
    """A forged VERIFIED over the attack: publish re-derives it from the testcases."""
    result = _compare()
    assert compare_problems(result, HEAD_SHA) == []
    loads = _run([_test("ok", P), _test("hidden", P, STALE)]).verdict
    for forged, needle in [
        (result.model_copy(update={"base_own": None}), "base's own run is missing"),
        (result.model_copy(update={"base_own": loads}), "not shown to fail alike"),
        (result.model_copy(update={"test_paths": (STALE,)}), "not shown to fail alike"),
        (
            result.model_copy(
                update={"test_paths": tuple(f"t{i}" for i in range(MAX_LISTED_PATHS))}
            ),
            "not all listed",
        ),
    ]:
        problems = compare_problems(forged, HEAD_SHA)
        assert any("VERIFIED" in p and needle in p for p in problems), problems


def test_base_own_blocked_is_blocked() -> None:
    result = _compare(own=_run([], status=RunStatus.BLOCKED))
    assert result.verdict is CompareVerdict.BLOCKED


def test_a_load_failure_without_a_file_forgives_nothing() -> None:
    nameless = _stand_in(file=None)
    head = _run([_test("bug", P), _test("ok", P), nameless], LOADS)
    result = _compare(head=head, own=_run([_test("ok", P), nameless], LOADS))
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert any("red flags" in r for r in result.reasons), result.reasons


def test_runtime_error_suites_without_a_load_error_stay_a_red_flag() -> None:
    flags = (RedFlag.COLLECTION_ERROR, RedFlag.RUNTIME_ERROR_SUITES)
    head = _run([_test("bug", P), _test("ok", P), _stand_in()], flags)
    result = _compare(head=head)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert any("runtime error suites" in r for r in result.reasons), result.reasons
    # control: with the load error that explains them, forgiven
    assert _compare(head=_run(HEAD.report.testcases, (*flags, RedFlag.LOAD_ERROR))).verdict is (  # type: ignore[union-attr]
        CompareVerdict.VERIFIED
    )


def test_an_image_gap_that_predates_the_pr_is_the_fail_it_shows() -> None:
    """head's and base's own NOT PROVEN (the image lacks a module only that file imports)
    become FAIL when the file never loaded before the PR; with a file that loads on base,
    the head run's own NOT PROVEN stands."""
    gap = (f"{NOT_PROVEN_PREFIX}'esm': 1 test file(s) could not load ({STALE})",)
    missing = "Cannot find module 'esm'"
    head = _run(
        [_test("bug", P), _test("ok", P), _stand_in(message=missing)],
        LOADS,
        verdict=Verdict.NOT_PROVEN,
        reasons=gap,
    )
    own = _run(
        [_test("ok", P), _stand_in(message=missing)], LOADS, verdict=Verdict.NOT_PROVEN, reasons=gap
    )
    before = _run([_test("bug", F), _test("ok", P), _stand_in(message=missing)], LOADS)
    result = _compare(before=before, head=head, own=own)
    assert result.verdict is CompareVerdict.VERIFIED, result.reasons
    assert result.head.verdict is Verdict.FAIL and "base's own run" in result.head.reasons[0]
    assert compare_problems(result, HEAD_SHA) == []
    refused = _compare(before=before, head=head, own=OWN)  # OWN's file fails another way
    assert refused.verdict is CompareVerdict.NOT_PROVEN
    assert any("was itself NOT_PROVEN" in r for r in refused.reasons), refused.reasons


def test_base_own_is_asked_about_the_untouched_files_head_could_not_load() -> None:
    assert unloaded.untouched(HEAD, CHANGED) == {STALE}
    assert unloaded.untouched(HEAD, (*CHANGED, STALE)) == set()
    assert unloaded.untouched(_run([_test("bug", P), _test("ok", F)]), CHANGED) == set()


def test_an_unflagged_stand_in_needs_the_same_evidence_as_publish_asks() -> None:
    """A junit report (bun's, an own command's) flags no load error for an errored case
    without a class: publish cannot see flags, so the verifier asks the same evidence."""
    head = _run([_test("bug", P), _test("ok", P), _stand_in()])
    _not_proven(_compare(head=head, own=None), "base's own run did not run")
    assert _compare(head=head).verdict is CompareVerdict.VERIFIED


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("at Object.<anonymous> (lib/Mock.js:3:9)", "lib/Mock.js"),
        ('File "/work/lib/Mock.js", line 3', "lib/Mock.js"),
        ("lib/Mock.js:3\nSyntaxError", "lib/Mock.js"),
        ("at (node_modules/x/package.json:1)", None),  # not the PR's package.json
        ("at (lib/Mock.jsx:3:9)", None),
        ("at (lib/mjs/lib/Mock.js:3:9)", None),
    ],
)
def test_an_error_names_a_changed_path_only_whole(text: str, named: str | None) -> None:
    assert names_path(text, ["package.json", "lib/Mock.js"]) == named
