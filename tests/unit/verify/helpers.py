"""Helpers the verdict-rule tests share: a sandbox result, and a whole run of a suite; and for the
compare rule tests, their statuses, shas, a proving pair of runs, a result decided from the
stages' hand-offs (``decided_result``) and the summary of a pairing."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from verify_pr.models.compare import ChangedCode, CompareResult
from verify_pr.models.report import FAILING, RedFlag, ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify.decision import decide as cmp
from verify_pr.verify.decision import summary_lists
from verify_pr.verify.harness.facts import HarnessFacts
from verify_pr.verify.proof.facts import ProofFacts
from verify_pr.verify.proof.ran_changed import ProofCode
from verify_pr.verify.runs.compare_runs import CompareRuns
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.split.changed import ChangedPaths
from verify_pr.verify.trees.export import Context

# Every run status box() was asked for: test_rules checks that its tests walk them all.
SEEN_RUN_STATUS: set[RunStatus] = set()


def box(
    status: RunStatus = RunStatus.COMPLETED,
    exit_code: int | None = 0,
    report: ReportStatus = ReportStatus.RETURNED,
    detail: str = "",
) -> SandboxResult:
    SEEN_RUN_STATUS.add(status)
    return SandboxResult(
        status=status,
        exit_code=exit_code,
        output_truncated=False,
        detail=detail,
        image="img:1",
        timeout_s=60,
        report=report,
    )


def outcome(
    statuses: dict[str, TestStatus] | None,
    *,
    status: RunStatus = RunStatus.COMPLETED,
    exit_code: int | None = None,
    flags: tuple[RedFlag, ...] = (),
    tamper: tuple[str, ...] = (),
    files: dict[str, str] | None = None,
) -> SuiteOutcome:
    """One run as the verifier sees it: a report of ``statuses`` (None: no report), its
    verdict and exit code derived as a run would give them unless told; each test in m.py
    unless ``files`` names its file."""
    report = None
    if statuses is not None:
        where = files or {}
        cases = [
            TestCase.build(
                name=n,
                classname=where.get(n, "m.py").removesuffix(".py").replace("/", "."),
                file=where.get(n, "m.py"),
                line=1,
                status=s,
            )
            for n, s in statuses.items()
        ]
        report = TestReport.build(format=ReportFormat.JUNIT, testcases=cases, red_flags=flags)
    failing = report is not None and any(s in FAILING for s in report.worst_by_id().values())
    if exit_code is None and status is RunStatus.COMPLETED:
        exit_code = 1 if failing else 0
    sandbox = SandboxResult(
        status=status,
        exit_code=exit_code,
        output_truncated=False,
        detail="" if status is RunStatus.COMPLETED else f"the run was {status}",
        image="img",
        timeout_s=60,
        report=ReportStatus.RETURNED if report else ReportStatus.MISSING,
    )
    verdict = {
        RunStatus.BLOCKED: Verdict.BLOCKED,
        RunStatus.COMPLETED: Verdict.FAIL if failing else Verdict.PASS,
    }.get(status, Verdict.NOT_PROVEN)
    vfile = VerdictFile(
        verdict=verdict,
        reasons=("r",),
        runner="pytest",
        runner_version=None,
        command="python3 -m pytest",
        totals=report.totals if report else None,
        testcases=report.testcases if report else (),
        sandbox=sandbox,
    )
    return SuiteOutcome(vfile, SandboxRun(sandbox, b"", None), report, tamper)


# The compare rule tests' statuses, shas and the pair of runs that proves a fix.
P, F, E, S = TestStatus.PASSED, TestStatus.FAILED, TestStatus.ERROR, TestStatus.SKIPPED
X = TestStatus.EXPECTED_FAILURE
BASE_SHA, HEAD_SHA = "a" * 40, "b" * 40
FIXED_BASE = {"t_bug": F, "t_ok": P}
FIXED_HEAD = {"t_bug": P, "t_ok": P}


# Each stage's hand-off by the names of its fields: ``decided_result`` routes a fact there.
_STAGE_FIELDS = {
    "context": {"refusal", "method", "merge_base", "merge_tree", "conflicts"},
    "runs": {"base_own", "removed", "removed_run"},
    "paths": {f.name for f in dataclasses.fields(ChangedPaths)},
    "harness": {"notes", "base_tamper", "markers"},
    "proof": {f.name for f in dataclasses.fields(ProofFacts)},
}


def decided_result(
    before: SuiteOutcome,
    head: SuiteOutcome,
    harness: Sequence[str] = (),
    strict: bool = False,
    *,
    pairing: cmp.Pairing | None = None,
    **facts: Any,
) -> CompareResult:
    """The result file of a compare whose stages handed on ``facts`` (each a field of one
    stage's hand-off, by name: ``base_own=``, ``code=``, ``notes=``, ``flaky=``...)."""
    staged: dict[str, dict[str, Any]] = {stage: {} for stage in _STAGE_FIELDS}
    for name, value in facts.items():
        (stage,) = [s for s, names in _STAGE_FIELDS.items() if name in names]
        staged[stage][name] = value
    stages = cmp.Stages(
        Context(BASE_SHA, HEAD_SHA, **staged["context"]),
        CompareRuns(before, head, **staged["runs"]),
        ChangedPaths(**staged["paths"]),
        HarnessFacts(tuple(harness), strict, **staged["harness"]),
        ProofFacts(**staged["proof"]),
    )
    return cmp.build_result(stages, pairing)


def compare_summary(before: SuiteOutcome, head: SuiteOutcome, harness: tuple[str, ...] = ()) -> str:
    """compare_summary.md as the CLI writes it: the result and the findings of one pairing."""
    paired = cmp.pair(before, head)
    result = decided_result(before, head, harness, pairing=paired)
    return summary_lists.summary_markdown(result, paired.findings)


def ran_changed_code(
    before: SuiteOutcome, head: SuiteOutcome, own: SuiteOutcome | None = None, path: str = "x.py"
) -> dict[str, ProofCode]:
    """Every proof of the pair as having run a changed line of ``path`` on head (what a real
    compare's re-runs show for a real fix: ``verify/proof/ran_changed.py``)."""
    from verify_pr.verify.pairing.pairing import pair

    ran = ProofCode(ChangedCode.RAN, (f"head {path}:1",))
    return dict.fromkeys(pair(before, head, own).proofs, ran)
