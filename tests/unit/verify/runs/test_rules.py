"""Every verdict rule of ``judge``: each test breaks if its rule is removed or inverted."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from tests.unit.verify.helpers import SEEN_RUN_STATUS, box
from verify_pr.models.report import RedFlag, ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict
from verify_pr.runners.config_code import REPLACES_RUNNER
from verify_pr.verify.runs.rules import DEPENDENCIES_HINT, Judgement, judge

TAMPER = ["conftest.py can rewrite results"]
SEEN_VERDICTS: set[Verdict] = set()


def case(name: str, status: TestStatus = TestStatus.PASSED, file: str = "t.py") -> TestCase:
    return TestCase.build(name=name, classname=None, file=file, line=1, status=status)


def rep(cases: Iterable[TestCase], flags: Iterable[RedFlag] = ()) -> TestReport:
    return TestReport.build(format=ReportFormat.JUNIT, testcases=cases, red_flags=flags)


CLEAN = rep([case("a"), case("b")])


def run(
    sandbox: SandboxResult | None = None,
    report: TestReport | None = CLEAN,
    *,
    output: bytes = b"",
    error: str | None = None,
    tamper: list[str] | None = None,
) -> Judgement:
    result = judge(sandbox or box(), output, report, error, tamper or [])
    SEEN_VERDICTS.add(result.verdict)
    return result


def joined(j: Judgement) -> str:
    return "\n".join(j.reasons)


# --- PASS needs all evidence ------------------------------------------------------------


def test_pass_with_all_evidence() -> None:
    j = run()
    assert j.verdict is Verdict.PASS
    assert j.reasons == ["2 test(s) executed, none failed; runner exited 0"]


def test_pass_counts_skipped_beside_executed() -> None:
    j = run(report=rep([case("a"), case("s", TestStatus.SKIPPED)]))
    assert j.verdict is Verdict.PASS
    assert "1 test(s) executed" in j.reasons[0]


# --- sandbox status -----------------------------------------------------------------------


def test_blocked_passes_through_even_with_a_clean_report() -> None:
    j = run(box(RunStatus.BLOCKED, None, detail="no daemon"), tamper=TAMPER)
    assert j.verdict is Verdict.BLOCKED
    assert j.reasons == ["the sandbox was blocked: no daemon"]


def test_timeout_is_not_proven_even_with_a_clean_report() -> None:
    j = run(box(RunStatus.TIMEOUT, None), tamper=TAMPER)
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons[0] == "the suite timed out after 60 s"
    assert any("conftest.py" in r for r in j.reasons[1:])


def test_error_is_not_proven_even_with_a_clean_report() -> None:
    j = run(box(RunStatus.ERROR, None, detail="sentinel missing"), tamper=TAMPER)
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons[0] == "the sandboxed run did not complete: sentinel missing"
    assert any("conftest.py" in r for r in j.reasons[1:])


def test_timeout_and_error_never_fail_on_a_failing_report() -> None:
    failing = rep([case("a", TestStatus.FAILED)])
    for status in (RunStatus.TIMEOUT, RunStatus.ERROR):
        assert run(box(status, None), failing).verdict is Verdict.NOT_PROVEN


@pytest.mark.parametrize("status", list(RunStatus))
def test_only_completed_can_pass(status: RunStatus) -> None:
    j = run(box(status, 0))
    assert (j.verdict is Verdict.PASS) == (status is RunStatus.COMPLETED)


# --- no usable report ---------------------------------------------------------------------

NO_REPORT_REASONS = {
    ReportStatus.MISSING: "the runner wrote no report at the random path",
    ReportStatus.NOT_REGULAR: "the report path was not a regular file",
    ReportStatus.TOO_LARGE: "the report was over 64 MiB",
    ReportStatus.STALE: "a file already stood at the report path before the run",
    ReportStatus.NOT_REQUESTED: "no report came back (not_requested)",
    ReportStatus.UNKNOWN: "no report came back (unknown)",
    ReportStatus.RETURNED: "no report came back (returned)",
}


@pytest.mark.parametrize("status", list(ReportStatus))
def test_every_report_status_without_a_report_is_not_proven(status: ReportStatus) -> None:
    j = run(box(report=status), None, tamper=TAMPER)
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons[0] == NO_REPORT_REASONS[status]
    assert j.reasons[-1] == f"the repo changes its own harness: {TAMPER[0]}"
    assert DEPENDENCIES_HINT not in j.reasons


def test_every_report_status_has_a_reason() -> None:
    assert set(NO_REPORT_REASONS) == set(ReportStatus)


def test_unparseable_report_is_not_proven_with_the_parse_error() -> None:
    j = run(box(), None, error="XML depth cap hit")
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons == ["the report could not be trusted: XML depth cap hit"]


def test_unparseable_report_is_not_proven_even_on_exit_0_and_failing_exit() -> None:
    for code in (0, 1):
        j = run(box(exit_code=code), None, error="bad")
        assert j.verdict is Verdict.NOT_PROVEN


# --- the dependencies hint ------------------------------------------------------------------


@pytest.mark.parametrize("code", [126, 127])
def test_dependencies_hint_on_126_and_127(code: int) -> None:
    j = run(box(exit_code=code, report=ReportStatus.MISSING), None)
    assert j.verdict is Verdict.NOT_PROVEN
    assert DEPENDENCIES_HINT in j.reasons


@pytest.mark.parametrize(
    "output",
    [
        b"/usr/bin/python3: No module named pytest\n",
        b"ModuleNotFoundError: x\n",
        b"Error: Cannot find module 'jest'\n",
        b"sh: 1: vitest: not found\n",
        b"bash: bun: command not found\n",
    ],
)
def test_dependencies_hint_from_output(output: bytes) -> None:
    j = run(box(exit_code=1, report=ReportStatus.MISSING), None, output=b"x" * 70000 + output)
    assert DEPENDENCIES_HINT in j.reasons


def test_no_dependencies_hint_on_other_failures() -> None:
    j = run(box(exit_code=1, report=ReportStatus.MISSING), None, output=b"Segmentation fault\n")
    assert DEPENDENCIES_HINT not in j.reasons


def test_dependencies_hint_with_red_flags() -> None:
    flagged = rep([case("a")], [RedFlag.COLLECTION_ERROR])
    with_hint = run(
        box(exit_code=2), flagged, output=b"E   ModuleNotFoundError: No module named 'x'"
    )
    assert DEPENDENCIES_HINT in with_hint.reasons
    assert DEPENDENCIES_HINT not in run(box(exit_code=2), flagged, output=b"E  boom").reasons


def test_missing_module_at_collection_is_fail_with_the_hint() -> None:
    """A test module that cannot import a module is failure evidence (it may be the PR's own
    module), but the reasons name the missing module and the dependencies hint."""
    report = rep([case("t.py", TestStatus.ERROR)], [RedFlag.COLLECTION_ERROR])
    out = b"E   ModuleNotFoundError: No module named 'attr'\x1b[0m\nmore\n"
    j = run(box(exit_code=2), report, output=out, tamper=TAMPER)
    assert j.verdict is Verdict.FAIL
    assert j.reasons[1] == (
        "a test file could not be loaded: E   ModuleNotFoundError: No module named 'attr'\\x1b[0m"
    )
    assert j.reasons[2] == DEPENDENCIES_HINT
    assert j.reasons[-1] == f"the repo changes its own harness: {TAMPER[0]}"


@pytest.mark.parametrize("flag", [RedFlag.COLLECTION_ERROR, RedFlag.LOAD_ERROR])
def test_load_error_without_a_missing_module_is_fail(flag: RedFlag) -> None:
    report = rep([case("t.py", TestStatus.ERROR)], [flag])
    j = run(box(exit_code=1), report, output=b"SyntaxError: invalid syntax\n")
    assert j.verdict is Verdict.FAIL
    assert DEPENDENCIES_HINT not in j.reasons


def test_missing_module_beside_a_real_failure_is_fail() -> None:
    report = rep(
        [case("t.py", TestStatus.ERROR), case("x", TestStatus.FAILED)], [RedFlag.LOAD_ERROR]
    )
    j = run(box(exit_code=1), report, output=b"Error: Cannot find module 'left-pad'\n")
    assert j.verdict is Verdict.FAIL


def test_missing_module_without_a_load_flag_is_fail() -> None:
    report = rep([case("t", TestStatus.ERROR)])
    j = run(box(exit_code=1), report, output=b"No module named 'x'\n")
    assert j.verdict is Verdict.FAIL
    assert DEPENDENCIES_HINT not in j.reasons


# --- failure evidence -----------------------------------------------------------------------


@pytest.mark.parametrize("status", [TestStatus.FAILED, TestStatus.ERROR])
def test_failed_or_errored_testcase_is_fail(status: TestStatus) -> None:
    j = run(box(exit_code=1), rep([case("a"), case("bad", status)]), tamper=TAMPER)
    assert j.verdict is Verdict.FAIL
    assert j.reasons[0] == "1 test(s) failed or errored, e.g. t.py::::bad"
    assert not any("exited 0" in r for r in j.reasons)
    assert j.reasons[-1] == f"the repo changes its own harness: {TAMPER[0]}"


def test_failures_beat_red_flags_and_zero_executed_checks() -> None:
    report = rep([case("bad", TestStatus.FAILED)], [RedFlag.INTERRUPTED])
    assert run(box(exit_code=1), report).verdict is Verdict.FAIL


def test_exit_0_with_failures_is_fail_with_the_exit_code_reason() -> None:
    j = run(box(exit_code=0), rep([case("bad", TestStatus.FAILED)]))
    assert j.verdict is Verdict.FAIL
    assert "the runner exited 0 despite failures: its exit code was changed" in j.reasons


def test_worst_result_per_id_decides() -> None:
    """A fail-then-teardown-error or a retry gives two testcases with one id."""
    report = rep([case("a", TestStatus.FAILED), case("a", TestStatus.PASSED)])
    assert run(box(exit_code=0), report).verdict is Verdict.FAIL


def test_failing_count_is_per_id() -> None:
    report = rep([case("a", TestStatus.FAILED), case("a", TestStatus.ERROR), case("b")])
    assert run(box(exit_code=1), report).reasons[0].startswith("1 test(s) failed")


# --- red flags ----------------------------------------------------------------------------


@pytest.mark.parametrize("flag", list(RedFlag))
def test_every_red_flag_blocks_a_pass(flag: RedFlag) -> None:
    j = run(report=rep([case("a")], [flag]), tamper=TAMPER)
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons[0] == f"the report shows red flags: {flag}"
    assert j.reasons[-1] == f"the repo changes its own harness: {TAMPER[0]}"


# --- zero executed --------------------------------------------------------------------------


def test_zero_testcases_is_not_proven() -> None:
    j = run(report=rep([]))
    assert j.verdict is Verdict.NOT_PROVEN
    assert "no testcases" in j.reasons[0]


def test_all_skipped_is_not_proven() -> None:
    j = run(report=rep([case("a", TestStatus.SKIPPED), case("b", TestStatus.SKIPPED)]))
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons == ["no test was executed (zero tests, or all skipped or expected to fail)"]


# --- exit code and report disagree ------------------------------------------------------------


@pytest.mark.parametrize("code", [1, 2, 5, 6, 137, 255, None])
def test_nonzero_exit_with_a_clean_report_is_not_proven(code: int | None) -> None:
    j = run(box(exit_code=code), tamper=TAMPER)
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons[0] == (
        f"the runner exited {code} but its report shows no failure: exit code and report disagree"
    )
    assert j.reasons[-1] == f"the repo changes its own harness: {TAMPER[0]}"


# --- tamper signals ---------------------------------------------------------------------------


def test_tamper_signals_are_carried_on_a_pass() -> None:
    j = run(tamper=["a", "b"])
    assert j.verdict is Verdict.PASS
    assert j.reasons[1:] == [
        "the repo changes its own harness: a",
        "the repo changes its own harness: b",
    ]


def test_tamper_signals_on_zero_executed() -> None:
    j = run(report=rep([]), tamper=TAMPER)
    assert j.reasons[-1] == f"the repo changes its own harness: {TAMPER[0]}"


REPLACED = f"{REPLACES_RUNNER}node_modules/jest: the image's jest hands the run over"


def test_a_runner_replaced_by_the_tree_never_passes() -> None:
    j = run(tamper=["a", REPLACED])
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons[0].startswith("1 part(s) of the runner came from the tree")
    assert j.reasons[-1] == f"the repo changes its own harness: {REPLACED}"
    assert run(tamper=["a"]).verdict is Verdict.PASS  # positive control: a plain signal


def test_a_runner_replaced_by_the_tree_still_fails_on_failure_evidence() -> None:
    j = run(box(exit_code=1), rep([case("bad", TestStatus.FAILED)]), tamper=[REPLACED])
    assert j.verdict is Verdict.FAIL


# --- coverage of the enums (runs last in this module) -----------------------------------------


def test_zz_every_verdict_and_run_status_was_walked() -> None:
    assert set(Verdict) == SEEN_VERDICTS
    assert set(RunStatus) == SEEN_RUN_STATUS


# --- reasons a maintainer can act on --------------------------------------------------------


def test_no_report_names_the_first_error_line() -> None:
    out = b"ImportError while loading conftest '/work/conftest.py'.\nE   RuntimeError: boom\n"
    j = run(box(exit_code=4, report=ReportStatus.MISSING), None, output=out)
    assert j.verdict is Verdict.NOT_PROVEN
    assert "the runner's first error: RuntimeError: boom" in j.reasons


def test_no_report_names_the_missing_module_and_the_image() -> None:
    out = b"E   ModuleNotFoundError: No module named 'attrs_dep'\n"
    j = run(box(exit_code=4, report=ReportStatus.MISSING), None, output=out)
    assert "the module 'attrs_dep' could not be imported: the image must hold it" in j.reasons
    assert DEPENDENCIES_HINT in j.reasons


def test_a_load_error_fail_names_the_first_error_line() -> None:
    flagged = rep([case("a", TestStatus.ERROR)], [RedFlag.COLLECTION_ERROR])
    j = run(box(exit_code=2), flagged, output=b"ERROR collecting t.py\nE   SyntaxError: bad\n")
    assert j.verdict is Verdict.FAIL
    assert "a test file could not be loaded: SyntaxError: bad" in j.reasons
