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
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from verify_pr.errors import InputRefused
from verify_pr.models.compare import CompareResult
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.sandbox import cancel, tree_files
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify.coverage import patch
from verify_pr.verify.decision import decide
from verify_pr.verify.harness import closure
from verify_pr.verify.harness.facts import HarnessFacts
from verify_pr.verify.harness.names import harness_files
from verify_pr.verify.pairing import bun_markers, unloaded
from verify_pr.verify.pairing.base_own import OwnRun
from verify_pr.verify.pairing.pairing import Findings, pair
from verify_pr.verify.pairing.removed import judge_removed
from verify_pr.verify.proof import early, ran_changed, rerun
from verify_pr.verify.proof.facts import ProofFacts
from verify_pr.verify.runs.compare_runs import CompareRuns
from verify_pr.verify.runs.expected_failures import added_markers
from verify_pr.verify.runs.parallel import SandboxPool
from verify_pr.verify.runs.planner import Planner
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan
from verify_pr.verify.settings import CompareSettings
from verify_pr.verify.split.changed import ChangedPaths
from verify_pr.verify.split.placed import late_tests, linked_to, placed_files
from verify_pr.verify.split.testpaths import TestPathRule, rule_for, split
from verify_pr.verify.trees import overlay, sides
from verify_pr.verify.trees.export import Exported, export

_Pool = SandboxPool[tuple[Path, SuitePlan], SuiteOutcome]


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
    """Export the trees, run each in its own sandbox, re-run the proof, compare: made as
    ``settings`` say (read once from the flags, at the entry)."""
    from verify_pr.git.hardened import check_commit

    base_sha = check_commit(request.base_sha, "--base")
    head_sha = check_commit(request.head_sha, "--head")
    if len(base_sha) != len(head_sha):
        raise InputRefused("--base and --head use different hash lengths")
    work = Path(tempfile.mkdtemp(prefix="verify-pr-compare-"))
    cancel.discard(work)  # a signal removes it at once too (``sandbox/cancel.py``)
    try:
        trees = export(request.git_dir, base_sha, head_sha, work)
        if trees.context.refusal is not None:
            return _refused(settings, trees)
        # every run planned by base's runner (detected there once) and made alike
        planner = Planner.on_base(settings.suite, trees.base)
        # one pool for every sandbox of the compare: each run starts once its inputs are known
        pool: _Pool = SandboxPool(planner.run, settings.suite.limits.resources)
        with pool:
            return _compare(request, settings, planner, trees, work, pool)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _compare(
    request: CompareRequest,
    settings: CompareSettings,
    planner: Planner,
    trees: Exported,
    work: Path,
    pool: _Pool,
) -> CompareRun:
    from verify_pr.sandbox.guard import check_tree
    from verify_pr.verify.runs.suite import tamper_signals

    base_sha, head_sha = trees.context.base_sha, trees.context.head_sha
    strict = settings.strict_harness
    base_plan = planner.plan(trees.base)
    rule = rule_for(trees.base, base_plan.runner, trees.changed)
    # shared: the PR's version on both sides (tests, and whatever is not known to be code)
    shared, code = split(trees.changed, rule)
    tests = [p for p in shared if rule.is_test(p)]
    runner = base_plan.runner
    # what the runner reads from the files as harness (go: a test file defining TestMain)
    read = {} if runner is None else runner.harness_paths((trees.base, trees.after))
    scan = closure.scan(trees.base, trees.after, trees.changed, trees.renames, rule.is_test, read)
    harness = list(scan.paths)
    before_tree = _before_tree(trees, work, shared)
    if strict:
        overlay.overlay_harness(trees.base, trees.after, harness)
        if before_tree != trees.base:
            overlay.overlay_harness(trees.base, before_tree, harness)
    # every tree built the same way: only the code files' content tells the sides apart
    settled = sides.settle_all([trees.base, before_tree, trees.after], work)
    trees = replace(trees, base=settled[trees.base], after=settled[trees.after])
    before_tree = settled[before_tree]
    for tree in {trees.base, trees.after, before_tree}:
        check_tree(tree)
    # patch coverage (docs/coverage.md) and what each proof ran (``proof.ran_changed``): the
    # same tracer, with the same files, on both sides' whole runs and re-runs
    after_ish = trees.context.merge_tree or head_sha
    coverage = patch.start(
        request.git_dir, base_sha, after_ish, base_plan.runner, trees.after, code, before_tree
    )
    # the runner is base's; each run's import probe looks at the tree that run runs
    jobs = [
        (before_tree, coverage.plan(planner.plan(before_tree))),
        (trees.after, coverage.plan(planner.plan(trees.after))),
    ]
    # base's own run shows how the tests stood before the PR touched them: needed when it
    # edits or deletes a test path (or adds a conftest or data file beside them), or changes
    # a file neither test nor code (the PR's on both sides: a test it breaks fails on both)
    others = [p for p in shared if p not in tests]
    edited = [p for p in tests if _exists(trees.base, p) or not _is_module(rule, p)]
    # base's own run: a collection of the whole of base, then a run by id of what before and
    # head name (``base_own``); whole where the runner cannot list its tests
    own = OwnRun(planner.plan(trees.base), trees.base, edited, trees.changed)
    if edited or others:
        jobs.append(own.first_job())
    futures = pool.start(jobs)  # the whole runs share the cores when they outnumber them
    if edited or others:
        own.started(futures[2], pool.submit)
    before, head = futures[0].result(), futures[1].result()
    coverage.take_head(head)
    # also needed when head cannot load a test file the PR does not change (``unloaded``), or
    # before cannot load a package (a load failure naming no file): base's own run shows which
    # of its tests passed before the PR, so none of those is taken for a proof (``pairing``)
    own_needed = bool(
        edited
        or others
        or unloaded.untouched(head, trees.changed)
        or unloaded.unplaced(before, before_tree)
    )
    started_early, base_own = None, None
    if own_needed:
        own.submit((before, head), pool.submit)
        if not own.done():  # the re-runs beside base's own run
            known = (trees.base, before_tree, trees.after)
            started_early = early.start(
                base_plan, known, code, (before, head), settings.flake_runs, coverage, pool.run_all
            )
        base_own = own.result()
    outcomes = [before, head, *([base_own] if base_own else [])]
    # the reports place tests where base's rule saw code: such a path goes to the test side
    # (and before runs again with it) or, when it is base's code and test at once, is mixed
    roots = (trees.base, trees.after)
    late = late_tests(code, placed_files(outcomes, roots), trees.base, base_plan.runner)
    mixed = list(late.mixed)
    if late.moved:
        if before_tree == trees.base:
            before_tree = _copy(trees.base, work / "before")
        overlay.overlay_paths(trees.after, before_tree, late.moved)
        if strict:
            overlay.overlay_harness(trees.base, before_tree, harness)
        before_tree = coverage.before_tree = sides.settle(before_tree, work)
        check_tree(before_tree)
        code = [p for p in code if p not in late.moved]
        shared = sorted({*shared, *late.moved})
        tests = sorted({*tests, *late.moved})
        edited += [p for p in late.moved if _exists(trees.base, p)]
        plan_again = coverage.plan(planner.plan(before_tree))
        before = pool.run_all([(before_tree, plan_again)])[0]
        # a path moved to the test side: base's own run, by what the new before run names
        # (a whole one already run stands)
        if base_own is None or own.collect is not None:
            again = own.again(edited)
            again.submit((before, head), pool.submit)
            base_own = again.result()
        # what the new before run places in code is code and test at once, whatever it is
        mixed += [p for p in code if p in placed_files([before], roots)]
    mixed = sorted(set(mixed))
    # for NOTHING TO PROVE (``nothing``): the files of base the PR changes that hold tests
    placed = placed_files([before, head, base_own], roots)
    tested = tuple(p for p in trees.changed if p in placed and _exists(trees.base, p))
    # a test module that is a link to a mixed file places its tests under the link's name
    mixed_links = sorted({*mixed, *linked_to(placed, roots, mixed)})
    cases = (c.file for c in head.verdict.testcases)
    doubtful = bun_markers.doubtful_under(base_plan.runner, trees.after, cases)
    pairing = pair(before, head, base_own, mixed_links, doubtful)
    confirmation = early.kept(started_early, pairing.proofs, late.moved, coverage)
    if confirmation is None:
        confirmation = rerun.confirm(
            base_plan,
            before_tree,
            trees.after,
            head,
            pairing.proofs,
            settings.flake_runs,
            coverage.run_all(pool.run_all),  # the tracer on both sides' re-runs
        )
    # a test of base gone on head runs from base's file over head's code (the fourth run)
    gone = judge_removed(
        base_plan,
        trees.base,
        trees.after,
        work,
        pairing.findings.gone,
        (base_own, before),
        pairing.proofs,
        code,
        pool.run_all,
    )
    changed_code = ran_changed.assess(pairing.proofs, code, confirmation, coverage)
    stages = decide.Stages(
        trees.context,
        CompareRuns(before, head, base_own, gone.outcome, gone.tests),
        ChangedPaths(
            changed=tuple(trees.changed),
            rule=rule.describe(),
            tests=tuple(shared),
            code=tuple(code),
            others=tuple(others),  # late-moved paths join both shared and tests: unchanged
            edited=tuple(sorted(set(edited))),
            late_tests=late.moved,
            mixed=tuple(mixed),
            tested=tested,
        ),
        HarnessFacts(
            files=tuple(harness),
            strict=strict,
            notes=tuple(scan.reasons(strict)),
            # the startup modules the head run read from the image, checked against base's
            base_tamper=tuple(tamper_signals(trees.base, base_plan, head.run.output)),
            markers=tuple(added_markers(trees.base, trees.after, tests)),
        ),
        ProofFacts.of(confirmation, settings.flake_runs, changed_code),
    )
    result = decide.build_result(stages, pairing)
    result = result.model_copy(update={"patch_coverage": coverage.result(code)})
    return CompareRun(
        result, before, head, base_own, findings=pairing.findings, listings=pairing.listings
    )


def _before_tree(trees: Exported, work: Path, shared: list[str]) -> Path:
    """The base tip with the PR's version of every shared path (base's tip itself, run
    once, when there is none)."""
    if not shared:
        return trees.base
    before_tree = _copy(trees.base, work / "before")
    overlay.overlay_paths(trees.after, before_tree, shared)
    return before_tree


def _is_module(rule: TestPathRule, path: str) -> bool:
    """A test module by name (not a conftest, a snapshot, or a data file in a test folder)."""
    name = PurePosixPath(path).name
    return name != "conftest.py" and not name.endswith(".snap") and rule.is_test(name)


_exists = tree_files.exists  # anything at the path, a link too, never followed


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


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
    harness = HarnessFacts(tuple(harness_files(trees.changed)), settings.strict_harness)
    result = decide.build_result(
        decide.Stages(trees.context, CompareRuns(outcome, outcome), harness=harness), pairing
    )
    return CompareRun(result, outcome, outcome, findings=pairing.findings)
