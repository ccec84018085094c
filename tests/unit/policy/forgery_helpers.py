"""One forged artifact per rule of the verdict's policy (``verify_pr.policy``).

Each builder takes an honest artifact (the positive control: the policy finds nothing in it)
and changes the least it can so that exactly its rule is broken. ``RUN_FORGERIES`` are run
artifacts (a ``verdict.json``), ``COMPARE_FORGERIES`` comparisons. ``ALSO`` names the rules a
forgery cannot help breaking too (a NOTHING_TO_PROVE claim over a fix is also a suite that does
not pass on both sides). ``test_forgeries`` requires one entry per rule of the policy, so a
new rule without a forgery fails.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.action.compare_builders import PROOF, case, compare_result
from tests.action.helpers import HEAD_SHA, verdict_file
from verify_pr.models.compare import CompareResult, CompareVerdict, TransitionCounts
from verify_pr.models.coverage import CoverageState, PatchCoverage
from verify_pr.models.removed import RemovedStanding, RemovedTest
from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus
from verify_pr.models.verdict import Verdict, VerdictFile

P, F, S, X = TestStatus.PASSED, TestStatus.FAILED, TestStatus.SKIPPED, TestStatus.EXPECTED_FAILURE
UNLOADED = TestCase.build(
    name="tests.test_stale",
    classname=None,
    file="tests/test_stale.py",
    line=None,
    status=TestStatus.ERROR,
    message="collection failure",
)


def run(verdict: Verdict, *statuses: TestStatus) -> VerdictFile:
    """A self-consistent run of ``test_fix`` and then ``test_1``... in ``statuses``."""
    names = ["test_fix", *(f"test_{i}" for i in range(1, len(statuses)))]
    cases = tuple(case(s, n) for s, n in zip(statuses, names, strict=True))
    return verdict_file(verdict, cases)


def _sandbox(verdict: VerdictFile, **update: Any) -> VerdictFile:
    return verdict.model_copy(update={"sandbox": verdict.sandbox.model_copy(update=update)})


def honest_run() -> VerdictFile:
    return run(Verdict.PASS, P, P)


def honest_verified() -> CompareResult:
    return compare_result()


def honest_nothing() -> CompareResult:
    return compare_result(
        run(Verdict.PASS, P, P), run(Verdict.PASS, P, P), CompareVerdict.NOTHING_TO_PROVE
    )


def _runs(
    base: VerdictFile, head: VerdictFile, verdict: CompareVerdict = CompareVerdict.VERIFIED
) -> CompareResult:
    """A comparison of these runs, its transitions and counts following from them."""
    return compare_result(base, head, verdict)


def _update(result: CompareResult, **update: Any) -> CompareResult:
    return result.model_copy(update=update)


NOT_MEASURED_RUN = PatchCoverage(state=CoverageState.NOT_MEASURED, has_proof=False)

RUN_FORGERIES: dict[str, Callable[[], VerdictFile]] = {
    "run.coverage": lambda: honest_run().model_copy(
        update={"patch_coverage": PatchCoverage(state=CoverageState.NOT_MEASURED)}
    ),
    "run.totals": lambda: honest_run().model_copy(update={"totals": Totals.count(())}),
    "run.blocked": lambda: honest_run().model_copy(update={"verdict": Verdict.BLOCKED}),
    "run.ran": lambda: _sandbox(honest_run(), report=ReportStatus.MISSING),
    "run.passed": lambda: _sandbox(honest_run(), exit_code=1),
    "run.failed": lambda: _sandbox(run(Verdict.FAIL, P, P), exit_code=1),
    "run.not_proven": lambda: run(Verdict.FAIL, F, P).model_copy(
        update={"verdict": Verdict.NOT_PROVEN}
    ),
}

COMPARE_FORGERIES: dict[str, Callable[[], CompareResult]] = {
    # what every comparison agrees with (claimed NOT_PROVEN where the claim's rules would
    # see the same forgery)
    "compare.commits": lambda: _update(honest_verified(), base_sha=HEAD_SHA),
    "compare.run_coverage": lambda: _update(
        honest_verified(),
        head=honest_verified().head.model_copy(update={"patch_coverage": NOT_MEASURED_RUN}),
    ),
    "compare.coverage": lambda: _update(honest_verified(), patch_coverage=NOT_MEASURED_RUN),
    "compare.transitions": lambda: _update(
        honest_verified(),
        verdict=CompareVerdict.NOT_PROVEN,
        transitions=(),
        counts=TransitionCounts(
            fail_to_pass=0,
            pass_to_pass=0,
            pass_to_fail=0,
            fail_to_fail=0,
            added=0,
            removed=0,
            skipped=0,
        ),
    ),
    "compare.counts": lambda: _update(
        honest_verified(),
        counts=honest_verified().counts.model_copy(update={"pass_to_pass": 7}),
    ),
    # VERIFIED
    "verified.fix": lambda: _update(
        _runs(run(Verdict.PASS, P), run(Verdict.PASS, P)), proofs=(PROOF,)
    ),
    "verified.harness": lambda: _update(honest_verified(), harness_files_changed=("conftest.py",)),
    "verified.changed_code": lambda: _update(honest_verified(), code_paths=()),
    "verified.unloaded": lambda: _runs(
        verdict_file(Verdict.FAIL, (case(F), UNLOADED)),
        verdict_file(Verdict.FAIL, (case(P), UNLOADED)),
    ),
    # NOTHING_TO_PROVE
    "nothing.fix": lambda: _update(honest_verified(), verdict=CompareVerdict.NOTHING_TO_PROVE),
    "nothing.broke_nothing": lambda: _update(
        honest_nothing(), other_paths=("data/cases.json",), base_own=run(Verdict.PASS, P, P)
    ),
    # neither may have
    "clean.regressed": lambda: _runs(run(Verdict.FAIL, F, P), run(Verdict.FAIL, P, F)),
    "clean.removed": lambda: _runs(run(Verdict.FAIL, F, P), run(Verdict.PASS, P)),
    "clean.skipped": lambda: _runs(run(Verdict.FAIL, F, P), run(Verdict.PASS, P, S)),
    "clean.expected": lambda: _runs(run(Verdict.FAIL, F, P), run(Verdict.PASS, P, X)),
    "clean.base_own": lambda: _update(honest_verified(), edited_test_paths=("tests/test_x.py",)),
    "clean.removed_claims": lambda: _update(
        honest_verified(),
        removed_tests=(RemovedTest(id="t.py::t", on_head=P, standing=RemovedStanding.PASSED),),
    ),
    "clean.sides": lambda: _update(
        honest_verified(), before=_sandbox(honest_verified().before, exit_code=0)
    ),
    "clean.test_changed": lambda: _update(honest_verified(), test_changed=("t.py::t",)),
    "clean.added_failing": lambda: _runs(run(Verdict.FAIL, F), run(Verdict.FAIL, P, F)),
    "clean.flaky": lambda: _update(honest_verified(), flaky=(PROOF.id,)),
    "clean.markers": lambda: _update(honest_verified(), expected_failure_markers=("t.py",)),
    "clean.conflicts": lambda: _update(honest_verified(), conflicts=("x.py",)),
}

ALSO: dict[str, frozenset[str]] = {
    # a fix fails on base: the suite cannot pass on both sides
    "nothing.fix": frozenset({"nothing.broke_nothing"}),
}
