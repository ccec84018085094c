"""Export the trees with hardened git, run the three suites, re-run the proof, compare.

What is compared (as GitHub tests a PR, ``refs/pull/N/merge``):
- after: head merged into the base tip (``git merge-tree --write-tree``; head's own tree when
  the base tip is its ancestor). A conflict is NOT PROVEN, naming the paths: never a fallback.
- the PR's change: the paths from the merge base to head and those where after differs from
  the base tip, split by the rule of base's runner (``testpaths``) into code (known to be code)
  and the rest (tests, data, docs: the PR's version on both sides); the runs' reports can move
  a code path to the test side (``placed``), never back.
- before ("tests over base"): the base tip with after's version of every path that is not
  code. When there is none it is the base tip itself, run once.
- base_own: the base tip with its own tests, when the PR edits or deletes a test path of base,
  changes a path neither test nor code, moves a code path to the test side, or head cannot load
  a test file the PR does not change: a collection of the whole of base, then a run by id of
  what the verdict reads (``base_own``; whole where the runner cannot list its tests).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from verify_pr.errors import InputRefused
from verify_pr.models.compare import CompareResult
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.sandbox import cancel
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify.coverage import patch
from verify_pr.verify.decision import decide
from verify_pr.verify.harness.strict import judge_harness, named_only
from verify_pr.verify.pairing import side_runs
from verify_pr.verify.pairing.pairing import Findings, pair
from verify_pr.verify.proof.prove import Prover
from verify_pr.verify.runs.compare_runs import CompareRuns
from verify_pr.verify.runs.planner import Planner
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.settings import CompareSettings
from verify_pr.verify.split.changed import split_change
from verify_pr.verify.trees import sides
from verify_pr.verify.trees.export import Exported, export


@dataclass(frozen=True)
class CompareRequest:
    """What to compare; how is the ``CompareSettings`` passed beside it."""

    git_dir: Path
    base_sha: str
    head_sha: str


@dataclass(frozen=True)
class CompareRun:
    result: CompareResult
    before: SuiteOutcome  # base's code, the PR's tests
    head: SuiteOutcome
    base_own: SuiteOutcome | None = None
    # what stands against the PR, as the verdict used it: the summary lists these
    findings: Findings = field(kw_only=True)
    # each run's listing by artifact name, when a run is wider than its verdict file
    listings: dict[str, bytes] | None = field(default=None, kw_only=True)


def run_compare(request: CompareRequest, settings: CompareSettings) -> CompareRun:
    """Export the trees, run each in its own sandbox, re-run the proof, compare: the
    compare's stages in order, each handing the next its typed object, made as ``settings``
    say (read once from the flags, at the entry: each setting here, by the stage it makes)."""
    with _exported(request) as (exported, work):
        if exported.context.refusal is not None:
            return _refused(settings, exported)
        # every run planned by base's runner (detected there once) and made alike
        planner = Planner.on_base(settings.suite, exported.base)
        context, base_plan = exported.context, planner.plan(exported.base)
        runner = base_plan.runner
        paths = split_change(exported.base, exported.changed, runner)
        harness = judge_harness(exported, paths.rule.is_test, runner, settings.strict_harness)
        trees = sides.build(exported, work, paths.shared, harness.from_base)
        # patch coverage (docs/coverage.md) and what each proof ran (``proof.ran_changed``):
        # the same tracer, with the same files, on both sides' whole runs and re-runs
        coverage = patch.start(
            request.git_dir,
            context.base_sha,
            context.after,
            runner,
            trees.after,
            paths.code,
            trees.before,
        )
        # one pool for every sandbox of the compare: each run starts once its inputs are known
        with planner.pool() as pool:
            prover = Prover(base_plan, settings.flake_runs, coverage, pool.run_all)
            started = side_runs.start(planner, trees, paths, coverage, pool)
            started_early = prover.beside(started)  # the re-runs beside base's own run
            whole = side_runs.place(
                started.ended(), runner, harness.from_base, planner, coverage, pool, work
            )
            pairing = side_runs.pair_whole(whole, runner)
            proven = prover.prove(started_early, pairing, whole, work)
            before, head, base_own = whole.before, whole.head, whole.base_own
            stages = decide.Stages(
                context,
                CompareRuns(before, head, base_own, proven.gone.outcome, proven.gone.tests),
                whole.paths.judged(),
                harness.facts((trees.base, trees.after), base_plan, head, whole.paths.tests),
                proven.facts,
            )
            result = decide.build_result(stages, pairing)
            covered = coverage.result(whole.paths.code)
    return CompareRun(
        result.model_copy(update={"patch_coverage": covered}),
        before,
        head,
        base_own,
        findings=pairing.findings,
        listings=pairing.listings,
    )


@contextmanager
def _exported(request: CompareRequest) -> Iterator[tuple[Exported, Path]]:
    """Base's tip and after exported into a fresh work folder, removed on leaving."""
    from verify_pr.git.hardened import check_commit

    base_sha = check_commit(request.base_sha, "--base")
    head_sha = check_commit(request.head_sha, "--head")
    if len(base_sha) != len(head_sha):
        raise InputRefused("--base and --head use different hash lengths")
    work = Path(tempfile.mkdtemp(prefix="verify-pr-compare-"))
    cancel.discard(work)  # a signal removes it at once too (``sandbox/cancel.py``)
    try:
        yield export(request.git_dir, base_sha, head_sha, work), work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _refused(settings: CompareSettings, trees: Exported) -> CompareRun:
    """Nothing ran: both sides are placeholders that say so."""
    why = trees.context.refusal or "nothing ran"
    sandbox = SandboxResult(
        status=RunStatus.ERROR,
        exit_code=None,
        output_truncated=False,
        detail=f"not run: {why}"[:4096],
        image=settings.suite.image[:256],
        timeout_s=settings.suite.limits.timeout_s,
        report=ReportStatus.NOT_REQUESTED,
    )
    verdict = VerdictFile(
        verdict=Verdict.NOT_PROVEN,
        reasons=(f"not run: {why}"[:500],),
        runner="none",
        runner_version=None,
        command="",
        totals=None,
        testcases=(),
        sandbox=sandbox,
    )
    outcome = SuiteOutcome(verdict, SandboxRun(sandbox, b"", None))
    pairing = pair(outcome, outcome)
    harness = named_only(trees.changed, settings.strict_harness)
    result = decide.build_result(
        decide.Stages(trees.context, CompareRuns(outcome, outcome), harness=harness), pairing
    )
    return CompareRun(result, outcome, outcome, findings=pairing.findings)
