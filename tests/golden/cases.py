"""Fixed model objects and every presentation output rendered from them.

Each output of ``verify_pr.render`` has golden files here, one per case: the run CLI's summary
(``cli-*.txt``; on a terminal ``tty-run-*.txt``), compare's lines on a terminal
(``tty-compare-*.txt``), ``compare_summary.md`` (``compare-summary-*.md``), the action's job summary
for run and compare (``job-run-*.md``, ``job-compare-*.md``) and the check run's title, summary
and text (``check-*.md``). The cases walk every verdict of both enums and carry the PR's
hostile text (pipes, mentions, newlines, bidi controls) so the escaping is part of the golden.

    python3 -I tests/golden/regen.py          # rewrite every golden file
    python3 -I tests/golden/regen.py --check  # exit 1 if any golden file would change
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from verify_pr.models.compare import CompareMethod, CompareResult, CompareVerdict, Proof
from verify_pr.models.coverage import CoverageState, FileCoverage, PatchCoverage
from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.transitions import classify, count
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.publish.checks import CheckOutput
from verify_pr.publish.conclusion import conclusion_for
from verify_pr.publish.intake import (
    Accepted,
    CompareArtifact,
    Intake,
    Refused,
    RunArtifact,
)
from verify_pr.publish.summary import render as render_check
from verify_pr.publish.trust import Trust
from verify_pr.render.job_summary import compare_job_summary, run_job_summary
from verify_pr.render.terminal import compare_text, run_summary
from verify_pr.verify.decision.summary_lists import listed, summary_markdown
from verify_pr.verify.pairing import nothing
from verify_pr.verify.pairing.pairing import Findings, findings
from verify_pr.verify.runs.testcases import statuses

GOLDEN = Path(__file__).resolve().parent
BASE_SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
HEAD_SHA = "0b1a55c0ffee0b1a55c0ffee0b1a55c0ffee0b1a"
MERGE_BASE = "aaaabbbbccccddddeeeeffff0000111122223333"
MERGE_TREE = "4444555566667777888899990000aaaabbbbcccc"
HOSTILE = "assert 'a|b' == '@octocat #12'\nsee https://evil.example GH-7 \u202eright-to-left"
OUT_DIR = Path("/tmp/verify-pr-out")


def case(
    name: str, status: TestStatus, file: str = "tests/test_calc.py", line: int = 4
) -> TestCase:
    failing = status in (TestStatus.FAILED, TestStatus.ERROR)
    return TestCase.build(
        name=name,
        classname=file.removesuffix(".py").replace("/", "."),
        file=file,
        line=line,
        status=status,
        message=HOSTILE if failing else None,
    )


def sandbox(status: RunStatus = RunStatus.COMPLETED, exit_code: int | None = 0) -> SandboxResult:
    blocked = status is RunStatus.BLOCKED
    return SandboxResult(
        status=status,
        exit_code=exit_code,
        output_truncated=False,
        detail="the image verify-pr-python:local is missing" if blocked else "",
        image="verify-pr-python:local",
        timeout_s=600,
        report=ReportStatus.NOT_REQUESTED if blocked else ReportStatus.RETURNED,
    )


def verdict_file(
    verdict: Verdict,
    cases: Iterable[TestCase],
    reasons: tuple[str, ...] = (),
    run: SandboxResult | None = None,
) -> VerdictFile:
    cases = tuple(cases)
    failing = any(c.status in (TestStatus.FAILED, TestStatus.ERROR) for c in cases)
    return VerdictFile(
        verdict=verdict,
        reasons=reasons,
        runner="pytest",
        runner_version="8.3.2",
        command="python3 -m pytest --junitxml {report}",
        totals=Totals.count(cases) if cases else None,
        testcases=cases,
        sandbox=run or sandbox(exit_code=int(failing)),
    )


def run_verdicts() -> dict[str, VerdictFile]:
    passed = [case(f"test_add_{i}", TestStatus.PASSED, line=i + 3) for i in range(3)]
    skipped = case("test_later", TestStatus.SKIPPED, line=40)
    failing = [
        case("test_sub", TestStatus.FAILED, line=12),
        case("test_fixture <b>|x", TestStatus.ERROR, "tests/test_@me.py", 20),
    ]
    many = [case(f"test_many_{i:02}", TestStatus.FAILED, line=i + 1) for i in range(55)]
    passing = verdict_file(Verdict.PASS, [*passed, skipped], ("the report shows 3 passed",))
    # run --diff-base (docs/coverage.md): no proof in a run; a helper nothing ran
    calc = FileCoverage(
        path="calc.py", measured=True, changed=(2, 9, 10, 11), run=(2, 9), not_run=(10, 11)
    )
    measured = PatchCoverage(
        state=CoverageState.MEASURED,
        tool="ast-probes (python 3.11.2)",
        changed_lines=4,
        run_lines=2,
        has_proof=False,
        files=(calc, FileCoverage(path="gen.py", measured=False, note="no data for this file")),
    )
    unmeasured = PatchCoverage(
        state=CoverageState.NOT_MEASURED,
        note="not measured: --diff-base 'main' names no commit of the repository (a shallow "
        "clone lacks it: fetch it, e.g. actions/checkout with fetch-depth: 0)",
        has_proof=False,
    )
    return {
        "pass": passing,
        "pass-coverage": passing.model_copy(update={"patch_coverage": measured}),
        "pass-not-measured": passing.model_copy(update={"patch_coverage": unmeasured}),
        "fail": verdict_file(
            Verdict.FAIL, [*passed, *failing], ("2 test(s) failed: tests/test_calc.py::sub",)
        ),
        "fail-many": verdict_file(Verdict.FAIL, many, ("55 test(s) failed",)),
        "not-proven": verdict_file(
            Verdict.NOT_PROVEN,
            (),
            ("no report: the runner wrote no file at {report}", "exit code 2 @someone"),
            sandbox(exit_code=2),
        ),
        "blocked": verdict_file(
            Verdict.BLOCKED,
            (),
            ("the sandbox was blocked: the image is missing",),
            sandbox(RunStatus.BLOCKED, None),
        ),
    }


def _statuses(verdict: VerdictFile) -> dict[str, TestStatus]:
    return {c.id: c.status for c in verdict.testcases}


def lists(result: CompareResult) -> Findings:
    """What the verifier's pairing finds in these fixed runs (what the summary lists)."""
    before, head, own = statuses(result.before), statuses(result.head), statuses(result.base_own)
    return findings(result.transitions, before, head, own)


def compare_result(
    verdict: CompareVerdict,
    base: VerdictFile,
    head: VerdictFile,
    reasons: tuple[str, ...],
    **extra: object,
) -> CompareResult:
    transitions = classify(_statuses(base), _statuses(head))
    return CompareResult.model_validate(
        {
            "verdict": verdict,
            "reasons": reasons,
            "base_sha": BASE_SHA,
            "head_sha": HEAD_SHA,
            "strict_harness": False,
            "harness_files_changed": (),
            "counts": count(transitions),
            "transitions": tuple(transitions),
            "base": base,
            "head": head,
            **extra,
        },
        strict=False,
    )


def compare_results() -> dict[str, CompareResult]:
    fix = case("test_fix", TestStatus.FAILED, line=9)
    fixed = case("test_fix", TestStatus.PASSED, line=9)
    keep = [case(f"test_keep_{i}", TestStatus.PASSED, line=20 + i) for i in range(2)]
    proof = Proof(
        id=fix.id,
        file=fix.file,
        line=fix.line,
        message="assert add(2, 3) == 5\n  -1 != 5",
        reruns=3,
    )
    verified = compare_result(
        CompareVerdict.VERIFIED,
        verdict_file(Verdict.FAIL, [fix, *keep]),
        verdict_file(Verdict.PASS, [fixed, *keep]),
        ("1 test(s) fail on base's code with the PR's tests and pass on the PR's code",),
        method=CompareMethod.MERGE,
        merge_base=MERGE_BASE,
        merge_tree=MERGE_TREE,
        proofs=(proof,),
        test_rule="tests/** (base's pytest testpaths)",
        test_paths=("tests/test_calc.py",),
        code_paths=("calc.py",),
    )
    regress_base = [case(f"test_reg_{i:02}", TestStatus.PASSED, line=i + 1) for i in range(55)]
    regress_head = [case(f"test_reg_{i:02}", TestStatus.FAILED, line=i + 1) for i in range(55)]
    gone = case("test_gone|@x", TestStatus.PASSED, line=70)
    later = case("test_later", TestStatus.PASSED, line=71)
    later_skipped = case("test_later", TestStatus.SKIPPED, line=71)
    added = case("test_new", TestStatus.FAILED, line=72)
    own_changed = case("test_edited", TestStatus.FAILED, line=73)
    marked = case("test_marked", TestStatus.PASSED, line=74)
    marked_head = case("test_marked", TestStatus.EXPECTED_FAILURE, line=74)
    before_changed = case("test_edited", TestStatus.PASSED, line=73)
    not_proven = compare_result(
        CompareVerdict.NOT_PROVEN,
        verdict_file(Verdict.FAIL, [fix, *regress_base, gone, later, before_changed, marked]),
        verdict_file(
            Verdict.FAIL,
            [fixed, *regress_head, later_skipped, added, before_changed, marked_head],
        ),
        (
            "55 test(s) pass on base and fail on head: tests/test_calc.py::test_reg_00",
            "the PR changes 1 file(s) that judge it (conftest.py): rerun with --strict-harness",
            HOSTILE,
        ),
        method=CompareMethod.HEAD,
        harness_files_changed=(
            "conftest.py",
            "a|b<script>.pth",
            *(f"pkg{i:02}/conftest.py" for i in range(10)),
        ),
        proofs=(proof,),
        test_changed=(own_changed.id,),
        flaky=(fix.id,),
        base_own=verdict_file(Verdict.FAIL, [own_changed, gone]),
        conflicts=("calc.py",),
        test_paths=("tests/test_calc.py", "tests/test_@me.py"),
        code_paths=("calc.py",),
    )
    blocked_head = verdict_file(
        Verdict.BLOCKED, (), ("the sandbox was blocked",), sandbox(RunStatus.BLOCKED, None)
    )
    blocked = compare_result(
        CompareVerdict.BLOCKED,
        verdict_file(Verdict.FAIL, [fix]),
        blocked_head,
        ("the head sandbox was blocked: the image verify-pr-python:local is missing",),
        strict_harness=True,
    )
    # a docs change or a refactor: the suite passes on both sides, no test or harness changed
    clean = verdict_file(Verdict.PASS, [fixed, *keep])
    nothing_to_prove = compare_result(
        CompareVerdict.NOTHING_TO_PROVE,
        clean,
        clean,
        (nothing.reason(clean, clean),),
        method=CompareMethod.MERGE,
        merge_base=MERGE_BASE,
        merge_tree=MERGE_TREE,
        test_rule="tests/** (base's pytest testpaths)",
        code_paths=("calc.py",),
    )
    # patch coverage (docs/coverage.md): the fixed line run by the proof, a helper by nothing
    calc = FileCoverage(
        path="calc.py",
        measured=True,
        changed=(2, 9, 10, 11, 14),
        in_functions=(2, 10, 11),
        run=(2, 9),
        proof=(2, 9),
        not_run=(10, 11, 14),
    )
    coverage = PatchCoverage(
        state=CoverageState.MEASURED,
        tool="ast-probes (python 3.11.2)",
        changed_lines=5,
        run_lines=2,
        proof_lines=2,
        proof_measured=True,
        changed_in_functions=3,
        proof_in_functions=1,
        files=(calc,),
    )
    verified = verified.model_copy(update={"patch_coverage": coverage})
    return {
        "verified": verified,
        "nothing-to-prove": nothing_to_prove,
        "not-proven": not_proven,
        "blocked": blocked,
    }


def check_markdown(output: CheckOutput) -> str:
    """The check run's three fields in one file."""
    text = "(none)\n" if output.text is None else output.text
    return f"title: {output.title}\n--- summary ---\n{output.summary}--- text ---\n{text}"


def _check(intake: Intake, trust: Trust, notes: tuple[str, ...] = ()) -> str:
    return check_markdown(render_check(intake, trust, conclusion_for(intake, trust), notes))


def outputs(
    runs: dict[str, VerdictFile] | None = None, compares: dict[str, CompareResult] | None = None
) -> dict[str, Callable[[], str]]:
    """Golden file name -> how it is rendered now."""
    runs = run_verdicts() if runs is None else runs
    compares = compare_results() if compares is None else compares
    found: dict[str, Callable[[], str]] = {}
    for name, v in runs.items():
        found[f"cli-{name}.txt"] = lambda v=v: run_summary(v, OUT_DIR) + "\n"
        found[f"tty-run-{name}.txt"] = lambda v=v: run_summary(v, OUT_DIR, terminal=True) + "\n"
        found[f"job-run-{name}.md"] = lambda v=v: run_job_summary(v)
        found[f"check-run-{name}.md"] = lambda v=v: _check(
            Accepted(RunArtifact(v, "1 failed\n\x1b[31mred\x1b[0m ```\n")), Trust()
        )
    for name, r in compares.items():
        found[f"compare-summary-{name}.md"] = lambda r=r: summary_markdown(r, lists(r)) + "\n"
        found[f"tty-compare-{name}.txt"] = lambda r=r: (
            compare_text(r, listed(r, lists(r)), OUT_DIR) + "\n"
        )
        found[f"job-compare-{name}.md"] = lambda r=r: compare_job_summary(r)
        found[f"check-compare-{name}.md"] = lambda r=r: _check(
            Accepted(CompareArtifact(r, "head output\n")), Trust()
        )
    untrusted = Trust(reasons=["PR #1 changes .github/workflows/verify.yml"])
    found["check-compare-untrusted.md"] = lambda: _check(
        Accepted(CompareArtifact(compares["verified"], "")), untrusted, ("a note @here",)
    )
    found["check-refused.md"] = lambda: _check(
        Refused("the artifact contradicts itself: totals", "NOT_PROVEN"),
        untrusted,
    )
    return found
