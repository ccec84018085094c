"""A comparison's verdict, re-derived from its own data: the rules both jobs apply.

``verify.decision.decide.decide`` decides from the runs; the result file carries what these rules
read (the embedded runs, the transitions, the changed paths, base's own and the removed run,
the proofs). The publish job applies the same rules to the artifact, which is
attacker-controlled, and refuses it when the policy's conclusion differs from its claim:

- ``CONSISTENT``: what every comparison must agree with (its runs, its transitions and
  counts, its coverage block);
- ``CLAIMS``: the rules of the two claims that conclude ``success``, VERIFIED and
  NOTHING_TO_PROVE, each with ``CLEAN`` (what neither may have); a claim weaker than the
  evidence (NOT PROVEN where the data cannot tell what the verifier saw) is left alone.

``supported`` is the policy's conclusion: the strongest verdict the data allows. The rules
read a ``Compared``: the result and each run's every result (``policy.whole``: the listings of
a run wider than its verdict file, else the runs' testcases).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from verify_pr.models.compare import CompareResult, CompareVerdict, Transition
from verify_pr.models.report import TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.transitions import count
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.policy import nothing, pairing, proof, removed, unloaded
from verify_pr.policy.cases import executed_none, exit_disagrees, shown, worst_by_id
from verify_pr.policy.core import AllOf, Each, Finding, Rule
from verify_pr.policy.coverage import coverage_problems
from verify_pr.policy.run import RUN, Run
from verify_pr.policy.whole import (
    Compared,
    Whole,
    count_problems,
    file_of,
    transition_problems,
)


def _of_result(check: Callable[[CompareResult], Iterable[str]]) -> Callable[[Compared], list[str]]:
    """A rule that reads the result file only."""
    return lambda subject: list(check(subject.result))


def _findings(subject: Compared) -> pairing.Findings:
    """What stands against the PR, as the verifier's pairing lists it."""
    runs = subject.whole
    return pairing.findings(subject.result.transitions, runs.before, runs.head, runs.base_own)


def _fixes(result: CompareResult) -> int:
    return count(result.transitions).fail_to_pass


# -- what every comparison agrees with


def _commits(result: CompareResult) -> list[str]:
    if result.base_sha == result.head_sha:
        return ["the comparison's base and head are the same commit"]
    return []


def _runs(subject: Compared) -> Iterator[Run]:
    result, runs = subject.result, subject.whole
    yield Run(result.before, "the base run", runs.before if runs.wide else None)
    yield Run(result.head, "the head run", runs.head if runs.wide else None)
    if result.removed_run is not None:
        yield Run(result.removed_run, "the removed tests' run")


def _run_coverage(result: CompareResult) -> list[str]:
    if result.before.patch_coverage is not None or result.head.patch_coverage is not None:
        return ["a compared run carries patch coverage (the comparison holds it)"]
    return []


def _coverage(result: CompareResult) -> list[str]:
    return coverage_problems(result.patch_coverage, "the comparison", with_proof=True)


def _transitions(subject: Compared) -> list[str]:
    return transition_problems(subject.result, subject.whole)


def _counts(subject: Compared) -> list[str]:
    return count_problems(subject.result, subject.whole)


CONSISTENT: AllOf[Compared] = AllOf(
    (
        Rule("compare.commits", _of_result(_commits)),
        Each(_runs, RUN),
        Rule("compare.run_coverage", _of_result(_run_coverage)),
        Rule("compare.coverage", _of_result(_coverage)),
        Rule("compare.transitions", _transitions),
        Rule("compare.counts", _counts),
    )
)


# -- what neither VERIFIED nor NOTHING_TO_PROVE may have


def _regressed(subject: Compared) -> list[str]:
    found = _findings(subject)
    p2f = set(found.by_kind[Transition.PASS_TO_FAIL])
    own = [i for i in found.regressed if i not in p2f]
    gaps = ["a test regressed"] if p2f else []
    if own:
        gaps.append(f"{len(own)} test(s) that pass in base's own run fail on head")
    return gaps


def _removed(subject: Compared) -> list[str]:
    result, runs = subject.result, subject.whole
    gone, own_gone = removed.gone_ids(result, runs)
    gaps = ["a test was removed"] if removed.unexcused(result, gone, runs) else []
    own = removed.unexcused(result, own_gone, runs)
    if own:
        gaps.append(f"{len(own)} test(s) of base's own run are gone on both sides")
    return gaps


def _listed(ids: list[str], text: str) -> list[str]:
    return [f"{len(ids)} {text}"] if ids else []


def _skipped(subject: Compared) -> list[str]:
    return _listed(_findings(subject).newly_skipped, "test(s) of base are skipped on head")


def _expected(subject: Compared) -> list[str]:
    found = _findings(subject).newly_expected
    return _listed(found, "test(s) of base are expected to fail on head")


def _test_changed(subject: Compared) -> list[str]:
    if subject.result.test_changed or _findings(subject).test_changed:
        return ["tests changed, not the code"]
    return []


def _added_failing(subject: Compared) -> list[str]:
    return _listed(_findings(subject).added_failing, "test(s) new on head fail there")


def _flaky(result: CompareResult) -> list[str]:
    return ["tests are flaky"] if result.flaky else []


def _markers(result: CompareResult) -> list[str]:
    return ["the PR adds expected-failure markers"] if result.expected_failure_markers else []


def _conflicts(result: CompareResult) -> list[str]:
    return ["head does not merge cleanly"] if result.conflicts else []


def _base_own(subject: Compared) -> list[str]:
    """Base's own run where the paths the PR changes on both sides need it, and every test
    of it the verdict reads run (``verify.pairing.base_own``)."""
    result = subject.result
    if result.base_own is None:
        if result.edited_test_paths or result.other_paths:
            return ["base's own run is missing, yet the PR changes paths of both sides"]
        return []
    skipped = not_run_required(result, subject.whole)
    if skipped:
        return [
            f"base's own run did not run {len(skipped)} test(s) the verdict reads from it "
            f"({shown(skipped)})"
        ]
    return []


def not_run_required(result: CompareResult, whole: Whole | None = None) -> list[str]:
    """The tests base's own run lists as not run (collected, not run by id) that the rule of
    ``verify.pairing.base_own`` runs: those that did not pass on before or on head, those of
    the test files the PR edits or deletes, and those below a conftest it changes. A test the run's
    testcases do not list (a listing's) is in the file its id names; one whose id names no
    file is required whenever the PR edits a test path."""
    if result.base_own is None:
        return []
    runs = whole or Whole.of(result)
    not_run = {i for i, s in runs.base_own.items() if s is TestStatus.NOT_RUN}
    if not not_run:
        return []
    edited = set(result.edited_test_paths)
    scopes = [p.rpartition("/")[0] for p in edited if p.rpartition("/")[2] == "conftest.py"]
    files = {c.id: c.file for c in result.base_own.testcases}
    required = set()
    for i in not_run:
        file = file_of(i, files)
        unknown = file is None and i not in files
        below = file is not None and any(not f or file.startswith(f"{f}/") for f in scopes)
        if file in edited or below or (unknown and bool(edited)):
            required.add(i)
    for side in (runs.before, runs.head):
        required |= {i for i, s in side.items() if s is not TestStatus.PASSED}
    return sorted(not_run & required)


def _removed_claims(subject: Compared) -> list[str]:
    return removed.claim_problems(subject.result, subject.whole)


def side_distrust(verdict: VerdictFile, side: str) -> list[str]:
    """Why a side cannot be evidence (``verify.decision.decide.Side.distrust``, from what the result
    file holds of it: the red flags stay with the verifier)."""
    statuses = worst_by_id(verdict.testcases).values()
    problems = []
    if verdict.verdict not in (Verdict.PASS, Verdict.FAIL):
        problems.append(f"the {side} run was itself {verdict.verdict.value}")
    if verdict.sandbox.status is not RunStatus.COMPLETED:
        problems.append(f"a run did not complete ({side}: {verdict.sandbox.status.value})")
    if executed_none(statuses):
        problems.append(f"the {side} run executed zero tests")
    if exit_disagrees(statuses, verdict.sandbox.exit_code):
        problems.append(
            f"the {side} runner's exit code {verdict.sandbox.exit_code} disagrees with its report"
        )
    return problems


def _sides(result: CompareResult) -> list[str]:
    return side_distrust(result.before, "base") + side_distrust(result.head, "head")


CLEAN: AllOf[Compared] = AllOf(
    (
        Rule("clean.regressed", _regressed),
        Rule("clean.removed", _removed),
        Rule("clean.skipped", _skipped),
        Rule("clean.expected", _expected),
        Rule("clean.base_own", _base_own),
        Rule("clean.removed_claims", _removed_claims),
        Rule("clean.sides", _of_result(_sides)),
        Rule("clean.test_changed", _test_changed),
        Rule("clean.added_failing", _added_failing),
        Rule("clean.flaky", _of_result(_flaky)),
        Rule("clean.markers", _of_result(_markers)),
        Rule("clean.conflicts", _of_result(_conflicts)),
    )
)


# -- VERIFIED


def _fix(result: CompareResult) -> list[str]:
    return [] if _fixes(result) else ["no test fails on base and passes on head"]


def _harness(result: CompareResult) -> list[str]:
    if result.harness_files_changed and not result.strict_harness:
        return ["harness files changed without strict harness"]
    return []


VERIFIED: AllOf[Compared] = AllOf(
    (
        Rule("verified.fix", _of_result(_fix)),
        Rule("verified.harness", _of_result(_harness)),
        Rule("verified.changed_code", _of_result(proof.changed_code_gaps)),
        Rule("verified.unloaded", _of_result(unloaded.gaps)),
        CLEAN,
    )
)


# -- NOTHING_TO_PROVE


def _no_fix(result: CompareResult) -> list[str]:
    return ["a test fails on base and passes on head"] if _fixes(result) else []


def _broke_nothing(subject: Compared) -> list[str]:
    """``policy.nothing``'s rules over the artifact (the paths that hold tests are the
    verifier's alone: not in the result file), each run's every result read."""
    result, runs = subject.result, subject.whole
    return nothing.gaps(
        result.before,
        result.head,
        result.harness_files_changed,
        bool(result.edited_test_paths),
        (),
        result.other_paths,
        statuses=(runs.before, runs.head),
    )


NOTHING_TO_PROVE: AllOf[Compared] = AllOf(
    (
        Rule("nothing.fix", _of_result(_no_fix)),
        Rule("nothing.broke_nothing", _broke_nothing),
        CLEAN,
    )
)

CLAIMS: dict[CompareVerdict, AllOf[Compared]] = {
    CompareVerdict.VERIFIED: VERIFIED,
    CompareVerdict.NOTHING_TO_PROVE: NOTHING_TO_PROVE,
}
"""The claims that conclude ``success``, each with the rules that must hold for it."""

POLICY: AllOf[Compared] = AllOf((CONSISTENT, VERIFIED, NOTHING_TO_PROVE))
"""Every rule of a comparison (``names`` lists them)."""


def supported(result: CompareResult, whole: Whole | None = None) -> CompareVerdict:
    """The policy's conclusion: the strongest verdict the result's own data allows. VERIFIED
    and NOTHING_TO_PROVE never both (one needs a test that fails on base and passes on head,
    the other none); NOT_PROVEN when neither holds (and any weaker claim stands)."""
    subject = Compared.of(result, whole)
    for verdict, rules in CLAIMS.items():
        if not rules(subject):
            return verdict
    return CompareVerdict.NOT_PROVEN


def claim_findings(result: CompareResult, whole: Whole | None = None) -> list[Finding]:
    """What the artifact's claim breaks: empty when the claim is one the policy concludes, or
    weaker than any it could."""
    rules = CLAIMS.get(result.verdict)
    return rules(Compared.of(result, whole)) if rules is not None else []


def consistent(result: CompareResult, whole: Whole | None = None) -> list[Finding]:
    """What the comparison contradicts of itself and its runs (``CONSISTENT``)."""
    return CONSISTENT(Compared.of(result, whole))


def refusals(result: CompareResult, whole: Whole | None = None) -> list[Finding]:
    """Every finding that refuses the artifact: its contradictions, then its claim's."""
    return consistent(result, whole) + claim_findings(result, whole)


__all__ = [
    "CLAIMS",
    "CLEAN",
    "CONSISTENT",
    "NOTHING_TO_PROVE",
    "POLICY",
    "VERIFIED",
    "claim_findings",
    "consistent",
    "refusals",
    "side_distrust",
    "supported",
]
