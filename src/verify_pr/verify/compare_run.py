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

import dataclasses
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from verify_pr.errors import InputRefused
from verify_pr.models.compare import CompareMethod, CompareResult
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.runners.base import ExpectedFailures, with_args
from verify_pr.runners.registry import runner_named
from verify_pr.sandbox import cancel, tree_files
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify import (
    bun_markers,
    compare,
    early_proof,
    harness_closure,
    patch_coverage,
    proof_coverage,
    rerun,
    sides,
    unloaded,
)
from verify_pr.verify.base_own import OwnRun
from verify_pr.verify.expected_failures import added_markers
from verify_pr.verify.harness import harness_files
from verify_pr.verify.parallel import SandboxPool
from verify_pr.verify.placed import late_tests, linked_to, placed_files
from verify_pr.verify.removed import judge_removed
from verify_pr.verify.settings import CompareSettings, SuiteSettings
from verify_pr.verify.suite import SuiteOutcome, SuitePlan
from verify_pr.verify.testpaths import TestPathRule, rule_for, split

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
    findings: compare.Findings = field(kw_only=True)
    # each run's listing by artifact name, when a run is wider than its verdict file
    listings: dict[str, bytes] | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class _Trees:
    base: Path
    after: Path
    context: compare.Context
    changed: list[str]
    refusal: str | None = None
    renames: tuple[tuple[str, str], ...] = ()


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
        trees = _export(request, base_sha, head_sha, work)
        if trees.refusal is not None:
            return _refused(settings, base_sha, head_sha, trees)
        # one pool for every sandbox of the compare: each run starts once its inputs are known
        suite = settings.suite
        pool: _Pool = SandboxPool(lambda job: _run(suite, *job), suite.limits.resources)
        with pool:
            return _compare(request, settings, base_sha, head_sha, trees, work, pool)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _compare(
    request: CompareRequest,
    settings: CompareSettings,
    base_sha: str,
    head_sha: str,
    trees: _Trees,
    work: Path,
    pool: _Pool,
) -> CompareRun:
    from verify_pr.sandbox.guard import check_tree
    from verify_pr.verify.suite import tamper_signals

    suite, strict = settings.suite, settings.strict_harness
    base_plan = _plan(suite, trees.base)
    rule = rule_for(trees.base, base_plan.runner, trees.changed)
    # shared: the PR's version on both sides (tests, and whatever is not known to be code)
    shared, code = split(trees.changed, rule)
    tests = [p for p in shared if rule.is_test(p)]
    scan = harness_closure.scan(trees.base, trees.after, trees.changed, trees.renames, rule.is_test)
    harness = list(scan.paths)
    before_tree = _before_tree(trees, work, shared)
    if strict:
        compare.overlay_harness(trees.base, trees.after, harness)
        if before_tree != trees.base:
            compare.overlay_harness(trees.base, before_tree, harness)
    # every tree built the same way: only the code files' content tells the sides apart
    settled = sides.settle_all([trees.base, before_tree, trees.after], work)
    trees = replace(trees, base=settled[trees.base], after=settled[trees.after])
    before_tree = settled[before_tree]
    for tree in {trees.base, trees.after, before_tree}:
        check_tree(tree)
    # patch coverage (docs/coverage.md) and what each proof ran (``proof_coverage``): the
    # same tracer, with the same files, on both sides' whole runs and re-runs
    after_ish = trees.context.merge_tree or head_sha
    coverage = patch_coverage.start(
        request.git_dir, base_sha, after_ish, base_plan.runner, trees.after, code, before_tree
    )
    # the runner is base's; each run's import probe looks at the tree that run runs
    jobs = [
        (before_tree, coverage.plan(_plan(suite, before_tree, base_plan.runner))),
        (trees.after, coverage.plan(_plan(suite, trees.after, base_plan.runner))),
    ]
    # base's own run shows how the tests stood before the PR touched them: needed when it
    # edits or deletes a test path (or adds a conftest or data file beside them), or changes
    # a file neither test nor code (the PR's on both sides: a test it breaks fails on both)
    others = [p for p in shared if p not in tests]
    edited = [p for p in tests if _exists(trees.base, p) or not _is_module(rule, p)]
    # base's own run: a collection of the whole of base, then a run by id of what before and
    # head name (``base_own``); whole where the runner cannot list its tests
    own = OwnRun(_plan(suite, trees.base, base_plan.runner), trees.base, edited, trees.changed)
    if edited or others:
        jobs.append(own.first_job())
    futures = pool.start(jobs)  # the whole runs share the cores when they outnumber them
    if edited or others:
        own.started(futures[2])
    before, head = futures[0].result(), futures[1].result()
    coverage.take_head(head)
    # also needed when head cannot load a test file the PR does not change (``unloaded``)
    own_needed = bool(edited or others or unloaded.untouched(head, trees.changed))
    early, base_own = None, None
    if own_needed:
        own.submit((before, head), pool.submit)
        if not own.done():  # the re-runs beside base's own run
            known = (trees.base, before_tree, trees.after)
            early = early_proof.start(
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
        compare.overlay_paths(trees.after, before_tree, late.moved)
        if strict:
            compare.overlay_harness(trees.base, before_tree, harness)
        before_tree = coverage.before_tree = sides.settle(before_tree, work)
        check_tree(before_tree)
        code = [p for p in code if p not in late.moved]
        shared = sorted({*shared, *late.moved})
        tests = sorted({*tests, *late.moved})
        edited += [p for p in late.moved if _exists(trees.base, p)]
        plan_again = coverage.plan(_plan(suite, before_tree, base_plan.runner))
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
    pairing = compare.pair(
        before, head, base_own, mixed_links, _doubtful(base_plan, trees.after, head)
    )
    confirmation = early_proof.kept(early, pairing.proofs, late.moved, coverage)
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
    changed_code = proof_coverage.assess(pairing.proofs, code, confirmation, coverage)
    evidence = compare.Evidence(
        base_own=base_own,
        markers=tuple(added_markers(trees.base, trees.after, tests)),
        flaky=confirmation.flaky,
        unconfirmed=confirmation.unconfirmed,
        unfinished=confirmation.unfinished,
        reruns=settings.flake_runs if confirmation.checked else 0,
        rerun_ids=confirmation.rerun,
        rerun_whole=confirmation.whole,
        harness_notes=tuple(scan.reasons(strict)),
        mixed=tuple(mixed),
        # the startup modules the head run read from the image, checked against base's tree
        base_tamper=tuple(tamper_signals(trees.base, base_plan, head.run.output)),
        late_tests=late.moved,
        tested_paths=tested,
        others=tuple(others),  # late-moved paths join both shared and tests: unchanged
        changed=tuple(trees.changed),
        edited=tuple(sorted(set(edited))),
        removed=gone.tests,
        removed_run=gone.outcome,
        changed_code=changed_code,
    )
    result = compare.build_result(
        base_sha,
        head_sha,
        before,
        head,
        harness,
        strict,
        evidence=evidence,
        context=_with_split(trees.context, rule, shared, code),
        pairing=pairing,
    )
    result = result.model_copy(update={"patch_coverage": coverage.result(code)})
    return CompareRun(
        result, before, head, base_own, findings=pairing.findings, listings=pairing.listings
    )


def _doubtful(plan: SuitePlan, after: Path, head: SuiteOutcome) -> dict[str, str]:
    """bun's test files whose tests could be expected failures it does not report."""
    runner = runner_named(plan.runner)
    if runner is None or runner.expected_failures is not ExpectedFailures.CANNOT:
        return {}
    return bun_markers.doubtful(after, (c.file for c in head.verdict.testcases))


def _before_tree(trees: _Trees, work: Path, shared: list[str]) -> Path:
    """The base tip with the PR's version of every shared path (base's tip itself, run
    once, when there is none)."""
    if not shared:
        return trees.base
    before_tree = _copy(trees.base, work / "before")
    compare.overlay_paths(trees.after, before_tree, shared)
    return before_tree


def _export(request: CompareRequest, base_sha: str, head_sha: str, work: Path) -> _Trees:
    from verify_pr.git.hardened import HardenedGit, decode_path

    fmt = "sha256" if len(base_sha) == 64 else "sha1"
    with HardenedGit(request.git_dir, object_format=fmt) as git:
        git.require_commit(base_sha, "base")
        git.require_commit(head_sha, "head")
        merge_bases = git.merge_bases(base_sha, head_sha)
        empty = Path()
        if not merge_bases:
            why = "base and head share no history (no merge base): nothing to compare"
            return _Trees(empty, empty, compare.Context(CompareMethod.NONE), [], why)
        first = merge_bases[0]
        if git.is_ancestor(head_sha, base_sha):
            why = "head is already part of base (it is an ancestor of base): nothing to compare"
            ctx = compare.Context(CompareMethod.NONE, merge_base=first)
            return _Trees(empty, empty, ctx, [], why)
        changed: set[str] = set()
        renames: set[tuple[str, str]] = set()
        for merge_base in merge_bases:  # criss-cross history: every best base counts
            changed.update(decode_path(p) for p in git.changed_paths(merge_base, head_sha))
            renames.update(
                (decode_path(a), decode_path(b)) for a, b in git.renamed_paths(merge_base, head_sha)
            )
        if base_sha in merge_bases:
            ctx = compare.Context(CompareMethod.HEAD, merge_base=first)
            after = git.export(head_sha, work, "head")
        else:
            merge = git.merge_tree(base_sha, head_sha)
            conflicts = tuple(decode_path(p) for p in merge.conflicts)
            ctx = compare.Context(
                CompareMethod.MERGE, merge_base=first, merge_tree=merge.tree, conflicts=conflicts
            )
            if conflicts:
                shown = ", ".join(conflicts[:5]) + (" ..." if len(conflicts) > 5 else "")
                why = (
                    f"head does not merge cleanly into base: {len(conflicts)} conflicting "
                    f"path(s) ({shown}); rebase the PR on its base branch"
                )
                return _Trees(empty, empty, ctx, sorted(changed), why)
            after = git.export_tree(merge.tree, work, "merge")
            # the merged tree is classified whole: merge-ort follows a rename made on base,
            # so a path the PR's own diff does not name can still differ from base's tip
            changed.update(decode_path(p) for p in git.changed_paths(base_sha, merge.tree))
            renames.update(
                (decode_path(a), decode_path(b)) for a, b in git.renamed_paths(base_sha, merge.tree)
            )
        base = git.export(base_sha, work, "base")
    return _Trees(base, after, ctx, sorted(changed), renames=tuple(sorted(renames)))


def _with_split(
    ctx: compare.Context, rule: TestPathRule, tests: list[str], code: list[str]
) -> compare.Context:
    return compare.Context(
        ctx.method,
        ctx.merge_base,
        ctx.merge_tree,
        ctx.conflicts,
        rule.describe(),
        tuple(tests),
        tuple(code),
    )


def _plan(suite: SuiteSettings, base_tree: Path, runner: str | None = None) -> SuitePlan:
    """The runner is detected on base: the PR cannot choose what judges it."""
    from verify_pr.verify.suite import plan_custom, plan_detected

    if suite.command is not None:
        return plan_custom(suite.command, suite.report_format or "")
    plan = plan_detected(base_tree, runner or suite.runner)
    detected = runner_named(plan.runner)
    if detected is not None and not detected.compares:
        # issue 38: the runner's selection, harness and re-runs are not wired yet
        raise InputRefused(
            f"compare does not support the {plan.runner} runner yet: use verify-pr run"
        )
    if detected is not None and detected.compare_args:
        # the same words on every run keep the runs alike (pytest: a new test file that cannot
        # import on base's code must not stop the others); the import probe's packages stay
        # with the plan: without them the run never checks where they resolved (a package the
        # PR turns into a namespace package imports the image's copy on head)
        return dataclasses.replace(plan, command=with_args(plan.command, detected.compare_args))
    return plan


def _is_module(rule: TestPathRule, path: str) -> bool:
    """A test module by name (not a conftest, a snapshot, or a data file in a test folder)."""
    name = PurePosixPath(path).name
    return name != "conftest.py" and not name.endswith(".snap") and rule.is_test(name)


def _run(suite: SuiteSettings, tree: Path, plan: SuitePlan) -> SuiteOutcome:
    from verify_pr.verify.suite import run_suite

    limits = suite.limits
    return run_suite(tree, plan, suite.image, limits.timeout_s, limits.max_output, limits.resources)


_exists = tree_files.exists  # anything at the path, a link too, never followed


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


def _refused(settings: CompareSettings, base_sha: str, head_sha: str, trees: _Trees) -> CompareRun:
    """Nothing ran: both sides are placeholders that say so."""
    why = trees.refusal or "nothing ran"
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
    pairing = compare.pair(outcome, outcome)
    result = compare.build_result(
        base_sha,
        head_sha,
        outcome,
        outcome,
        harness_files(trees.changed),
        settings.strict_harness,
        evidence=compare.Evidence(refusal=why),
        context=trees.context,
        pairing=pairing,
    )
    return CompareRun(result, outcome, outcome, findings=pairing.findings)
