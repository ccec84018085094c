"""Before against after: which tests the PR turns green, and whether that proves anything.

The three runs (see ``compare_run``): *base_own* is base's code with base's tests; *before*
("tests over base") is base's code with the PR's version of every test path it changes;
*head* is the PR's code (head merged into base). Transitions pair before with head
(``pairing``), so a change to a test never counts as a change in the code's behaviour;
base_own shows how the tests the PR edits stood before it. Pure parts here take data and
return data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from verify_pr.models.compare import (
    MAX_COMPARE_REASONS,
    MAX_HARNESS_FILES,
    MAX_LISTED_PATHS,
    MAX_PROOFS,
    RULE_MAX_CHARS,
    CompareResult,
    CompareVerdict,
    Proof,
)
from verify_pr.models.report import RedFlag
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.verdict import REASON_MAX_CHARS, Verdict, VerdictFile
from verify_pr.policy.cases import executed_none, exit_disagrees
from verify_pr.verify.harness.facts import HarnessFacts
from verify_pr.verify.pairing import base_own, nothing, removed, unloaded
from verify_pr.verify.pairing.pairing import Findings, Pairing, findings, pair
from verify_pr.verify.proof import ran_changed
from verify_pr.verify.proof.facts import ProofFacts
from verify_pr.verify.proof.rerun import claim
from verify_pr.verify.runs.compare_runs import CompareRuns
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.runs.testcases import image_gap_as_fail, worst_cases
from verify_pr.verify.split.changed import ChangedPaths
from verify_pr.verify.trees.export import Context

# the tests reach the pairing through this module
__all__ = ["Findings", "Pairing", "findings", "pair"]


@dataclass(frozen=True)
class Side:
    """What the verdict needs from one run."""

    name: str  # "base", "head" or "base's own"
    outcome: SuiteOutcome
    load_errors_expected: bool = False  # before: a new test file may not load on old code
    # head: every test file it could not load also failed to load before the PR (``unloaded``)
    loads_predate: bool = False
    # base's own run was its collection alone: nothing the verdict reads needed a run by id
    collected_only: bool = False

    def blocked(self) -> str | None:
        result = self.outcome.verdict.sandbox
        if self.outcome.verdict.verdict is Verdict.BLOCKED or result.status is RunStatus.BLOCKED:
            return f"the {self.name} sandbox was blocked: {result.detail or 'no detail'}"
        return None

    def distrust(self) -> list[str]:
        """Why this run cannot be used as evidence (empty when it can)."""
        result = self.outcome.verdict.sandbox
        report = self.outcome.report
        if result.status is RunStatus.TIMEOUT:
            return [f"the {self.name} run timed out after {result.timeout_s} s"]
        if result.status is not RunStatus.COMPLETED:
            return [f"the {self.name} run did not complete: {result.detail or result.status}"]
        if report is None:
            why = "; ".join(self.outcome.verdict.reasons[:1]) or "no report"
            return [f"the {self.name} run has no usable report: {why}"]
        if self.collected_only:
            return []  # a collection: it ran no test and says so (``base_own``)
        reasons = []
        verdict = self.outcome.verdict
        if verdict.verdict not in (Verdict.PASS, Verdict.FAIL):
            # the run's own judgement (the import probe, a replaced runner...) stands: the
            # publish job refuses VERIFIED over such a run too
            why = verdict.reasons[0] if verdict.reasons else "no reason"
            reasons.append(f"the {self.name} run was itself {verdict.verdict.value}: {why}")
        allowed = {RedFlag.NO_TESTCASES}
        if self.load_errors_expected or self.loads_predate:
            allowed |= {RedFlag.COLLECTION_ERROR, RedFlag.LOAD_ERROR}
            if RedFlag.LOAD_ERROR in report.red_flags:
                # jest counts a test file that failed to load as a runtime-error suite too:
                # the PR's new test file importing what only the PR's code has
                allowed.add(RedFlag.RUNTIME_ERROR_SUITES)
        flags = [f for f in report.red_flags if f not in allowed]
        if flags:
            shown = ", ".join(str(f) for f in flags)
            reasons.append(f"the {self.name} report shows red flags: {shown}")
        statuses = report.worst_by_id().values()
        if executed_none(statuses):
            reasons.append(f"the {self.name} run executed zero tests")
        if exit_disagrees(statuses, result.exit_code) and result.exit_code == 0:
            reasons.append(f"the {self.name} runner exited 0 despite failing tests")
        elif exit_disagrees(statuses, result.exit_code):
            reasons.append(
                f"the {self.name} runner exited {result.exit_code} with a clean report: "
                "exit code and report disagree"
            )
        return reasons


@dataclass(frozen=True)
class Decision:
    verdict: CompareVerdict
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Stages:
    """What the stages of one compare handed on, each its own typed object: the decision and
    the result file read these, and nothing else of the compare."""

    context: Context  # trees: the commits, how after was made, why nothing ran
    runs: CompareRuns  # runs: before, head, base's own, the gone tests' run
    paths: ChangedPaths = field(default_factory=ChangedPaths)  # split
    harness: HarnessFacts = field(default_factory=HarnessFacts)  # harness
    proof: ProofFacts = field(default_factory=ProofFacts)  # proof: the re-runs


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(i[:150] for i in ids[:3])
    return shown + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")


def _unfinished(notes: Sequence[str]) -> str:
    """The first re-run that gave no result (a reason holds ``REASON_MAX_CHARS``)."""
    more = len(notes) - 1
    return notes[0][:250] + (f"; {more} more re-run(s) did not complete" if more else "")


def decide(before: Side, head: Side, pairing: Pairing, stages: Stages) -> Decision:
    """Every rule is checked and every failing rule gives a reason. ``before`` is base's code
    with the PR's tests; what stands against the PR is the pairing's (``Pairing.findings``)."""
    paths, tamper, proof = stages.paths, stages.harness, stages.proof
    own_run = stages.runs.base_own
    harness_changed = tamper.files
    paired_any = any(pairing.counts.model_dump().values())  # transitions may omit PASS_TO_PASS
    if stages.context.refusal is not None:
        return Decision(CompareVerdict.NOT_PROVEN, [stages.context.refusal])
    own = None
    if own_run is not None:
        only = base_own.nothing_ran(own_run)
        own = Side("base's own", own_run, load_errors_expected=True, collected_only=only)
    # head's test files that cannot load are forgiven only when they never loaded before the
    # PR either: in base's own run, untouched by the PR, with the same error
    loads = unloaded.judge(before.outcome, head.outcome, own_run, paths.changed)
    head = replace(head, loads_predate=bool(loads.forgiven))
    sides = [side for side in (before, head, own) if side is not None]
    blocked = [why for side in sides if (why := side.blocked())]
    if blocked:
        return Decision(CompareVerdict.BLOCKED, blocked)
    reasons = [why for side in sides for why in side.distrust()]
    reasons += loads.reasons
    if harness_changed and not tamper.strict:
        shown = ", ".join(harness_changed[:5]) + (" ..." if len(harness_changed) > 5 else "")
        reasons.append(
            f"the PR changes {len(harness_changed)} file(s) that judge it ({shown}): "
            "rerun with --strict-harness to run head's tests with base's harness"
        )
    reasons += tamper.notes
    reasons += pairing.not_whole
    known = before.outcome.tamper if tamper.base_tamper is None else tamper.base_tamper
    new_tamper = [s for s in head.outcome.tamper if s not in known]
    if new_tamper:
        reasons.append(f"head adds harness tamper signals: {'; '.join(new_tamper)[:300]}")
    found = pairing.findings
    f2p = pairing.proofs
    no_fix = None  # the one reason a clean comparison of a PR that fixes nothing has
    if not paired_any:
        reasons.append("zero tests on both sides: nothing to compare")
    elif not f2p and pairing.discounted:
        first, why = next(iter(pairing.discounted.items()))
        reasons.append(
            f"no test proves the fix: {len(pairing.discounted)} test(s) fail on base's code "
            f"and pass on head, but none in its own right ({first[:150]}: {why})"
        )
    elif not f2p:
        no_fix = (
            "no test fails on base's code and passes on head: "
            "the suite does not show what the PR fixes"
        )
        reasons.append(no_fix)
    rules = (
        (
            found.test_changed,
            "test(s) changed, not the code: failed on base, pass on base's "
            "code with the PR's version of the test",
        ),
        (found.regressed, "test(s) pass on base and fail on head"),
        (removed.broken(found.gone, stages.runs.removed), removed.BROKEN),
        (removed.still_gone(found.gone, stages.runs.removed), "test(s) of base are gone on head"),
        (found.newly_skipped, "test(s) of base are newly skipped"),
        (found.newly_expected, "test(s) of base are newly expected to fail (never a pass)"),
        (found.added_failing, "test(s) new on head fail there"),
        (
            list(proof.flaky),
            "FAIL_TO_PASS test(s) are flaky (re-run by id without the rest of the suite, "
            "they did not fail every time on base's code and pass every time on head)",
        ),
        (list(proof.unconfirmed), "FAIL_TO_PASS test(s) could not be re-run by id"),
    )
    for ids, text in rules:
        if ids:
            reasons.append(f"{len(ids)} {text}: {_ids(ids)}")
    if proof.unconfirmed and proof.unfinished:  # which re-run gave no result, and its limit
        reasons[-1] += f" ({_unfinished(proof.unfinished)})"
    if f2p and (why := ran_changed.refusal(f2p, proof.changed_code)):
        reasons.append(why)
    if tamper.markers:
        reasons.append(
            "the PR adds expected-failure markers (pytest xfail, jest test.failing, vitest "
            f"test.fails, todo), which turn a failure into a pass, in: {_ids(tamper.markers)}"
        )
    if no_fix is not None and reasons == [no_fix]:  # clean: did the PR break nothing?
        was, now = before.outcome.verdict, head.outcome.verdict
        with_tests = (*paths.mixed, *paths.late_tests, *paths.tested)
        # every result as paired (a wide run's whole report), as the publish job reads the
        # listings: a non-pass past a verdict file's cap is still seen
        gaps = nothing.gaps(
            was,
            now,
            harness_changed,
            bool(paths.edited),
            with_tests,
            paths.others,
            statuses=pairing.runs,
        )
        if not gaps:
            reason = nothing.reason(was, now, pairing.runs)
            return Decision(CompareVerdict.NOTHING_TO_PROVE, [reason])
        reasons += gaps
    if reasons:
        return Decision(CompareVerdict.NOT_PROVEN, reasons)
    rerun = claim(f2p, proof.rerun_ids, proof.rerun_whole, proof.reruns)
    rerun += ran_changed.note(f2p, proof.changed_code)
    return Decision(
        CompareVerdict.VERIFIED,
        [
            f"{len(f2p)} test(s) fail on base's code with the PR's tests and pass on the PR's "
            f"code{rerun}; none regressed, {removed.none_removed(stages.runs.removed)}skipped or "
            "expected to fail; every run completed with a clean report"
            f"{removed.note(stages.runs.removed)}"
        ],
    )


def _gap_as_fail(outcome: SuiteOutcome, who: str) -> SuiteOutcome:
    said = ": the same test file(s) fail to load in base's own run, untouched by the PR"
    verdict = image_gap_as_fail(outcome.verdict, f"the {who} run", said)
    return replace(outcome, verdict=verdict)


def proofs(
    proof_ids: Sequence[str],
    before: VerdictFile,
    head: VerdictFile,
    reruns: int,
    rerun_ids: Sequence[str] | None = None,
    changed_code: Mapping[str, ran_changed.ProofCode] | None = None,
) -> tuple[Proof, ...]:
    """Each FAIL_TO_PASS test that proves the fix, with where it is, how it failed on base's
    code and how often it was re-run per side (``reruns`` for those in ``rerun_ids``, every
    one when None; 0 for the others)."""
    rerun = None if rerun_ids is None else set(rerun_ids)
    before_cases, head_cases = worst_cases(before), worst_cases(head)
    found = []
    for test_id in proof_ids:
        was, now = before_cases.get(test_id), head_cases.get(test_id)
        where = now or was
        code = (changed_code or {}).get(test_id)
        found.append(
            Proof(
                id=test_id,
                file=where.file if where else None,
                line=where.line if where else None,
                message=was.message if was else None,
                reruns=reruns if rerun is None or test_id in rerun else 0,
                changed_code=code.state if code else None,
                changed_code_lines=code.lines if code else (),
            )
        )
    return tuple(found[:MAX_PROOFS])


def build_result(stages: Stages, pairing: Pairing | None = None) -> CompareResult:
    """The result file of one compare from its stages' hand-offs. ``pairing`` (computed here
    when not given) pairs before (base's code with the PR's tests), load failures expanded,
    with head."""
    runs, ctx, paths, tamper, proof = (
        stages.runs,
        stages.context,
        stages.paths,
        stages.harness,
        stages.proof,
    )
    before, head = runs.before, runs.head
    paired = pairing or pair(before, head, runs.base_own, paths.mixed)
    if unloaded.judge(before, head, runs.base_own, paths.changed).forgiven and runs.base_own:
        # their only failures are files that never loaded before the PR: the FAIL they show
        own = _gap_as_fail(runs.base_own, "base's own")
        runs = replace(runs, head=_gap_as_fail(head, "head"), base_own=own)
        head = runs.head
        stages = replace(stages, runs=runs)
    before_file, transitions = paired.before, paired.transitions
    expanded = SuiteOutcome(before_file, before.run, before.report, before.tamper)
    decision = decide(
        # "base" is the name the reasons give the before run
        Side("base", expanded, load_errors_expected=True),
        Side("head", head),
        paired,
        stages,
    )
    reasons = tuple(r[:REASON_MAX_CHARS] for r in decision.reasons[:MAX_COMPARE_REASONS])
    return CompareResult(
        verdict=decision.verdict,
        reasons=reasons,
        base_sha=ctx.base_sha,
        head_sha=ctx.head_sha,
        strict_harness=tamper.strict,
        harness_files_changed=tamper.files[:MAX_HARNESS_FILES],
        counts=paired.counts,
        transitions=tuple(transitions),
        base=before_file,
        head=head.verdict,
        method=ctx.method,
        merge_base=ctx.merge_base,
        merge_tree=ctx.merge_tree,
        conflicts=ctx.conflicts[:MAX_LISTED_PATHS],
        test_rule=paths.rule[:RULE_MAX_CHARS] if paths.rule else None,
        test_paths=paths.tests[:MAX_LISTED_PATHS],
        code_paths=paths.code[:MAX_LISTED_PATHS],
        base_own=runs.base_own.verdict if runs.base_own else None,
        edited_test_paths=paths.edited[:MAX_LISTED_PATHS],
        other_paths=paths.others[:MAX_LISTED_PATHS],
        proofs=proofs(
            paired.proofs,
            before_file,
            head.verdict,
            proof.reruns,
            proof.rerun_ids,
            proof.changed_code,
        ),
        test_changed=tuple(paired.findings.test_changed[:MAX_PROOFS]),
        flaky=tuple(proof.flaky[:MAX_PROOFS]),
        expected_failure_markers=tamper.markers[:MAX_LISTED_PATHS],
        removed_run=runs.removed_run.verdict if runs.removed_run else None,
        removed_tests=runs.removed[:MAX_LISTED_PATHS],
    )
