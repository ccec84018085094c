"""Trust is re-derived, not read: what an artifact's own data implies about its verdict.

The artifact's files pass their strict models, but a forged file can be well-formed and still
lie. So the publish side recomputes what the data implies, as ``verify.rules.judge`` and
``verify.compare.decide`` would, and lists every disagreement; any one makes the result NOT
TRUSTED. Only the claims that decide a conclusion are checked both ways (VERIFIED and
NOTHING_TO_PROVE, the two that conclude ``success``); a claim weaker than the
evidence (NOT PROVEN where the data cannot tell) is left alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from verify_pr.models.compare import MAX_LISTED_PATHS, CompareResult, CompareVerdict, Transition
from verify_pr.models.loadfail import load_failed_files, names_path
from verify_pr.models.report import (
    EXECUTED,
    FAILING,
    STATUS_RANK,
    TestCase,
    TestStatus,
    Totals,
    is_load_failure,
)
from verify_pr.models.sandbox import ReportStatus, RunStatus
from verify_pr.models.transitions import count
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.publish.coverage_checks import coverage_problems
from verify_pr.publish.listing_intake import Whole, file_of, totals_problems, transition_problems
from verify_pr.publish.proof_checks import changed_code_gaps
from verify_pr.publish.removed_checks import claim_problems, gone_ids, unexcused


def worst_by_id(cases: Iterable[TestCase]) -> dict[str, TestStatus]:
    """One status per id, the worst kept (as ``TestReport.worst_by_id``)."""
    worst: dict[str, TestStatus] = {}
    for case in cases:
        seen = worst.get(case.id)
        if seen is None or STATUS_RANK[case.status] > STATUS_RANK[seen]:
            worst[case.id] = case.status
    return worst


def run_problems(
    verdict: VerdictFile, side: str = "the run", listing: Mapping[str, TestStatus] | None = None
) -> list[str]:
    """Where a run's verdict disagrees with its own sandbox result, totals and testcases (or,
    for a run wider than its verdict file, its ``listing``: ``listing_intake.totals_problems``)."""
    problems = coverage_problems(verdict.patch_coverage, side, with_proof=False)
    result = verdict.sandbox
    claimed = verdict.verdict.value
    if listing is not None:
        problems += totals_problems(verdict, listing, side)
    elif verdict.totals is not None and verdict.totals != Totals.count(verdict.testcases):
        problems.append(f"{side}'s totals do not match its testcases")
    if verdict.totals is None and verdict.testcases:
        problems.append(f"{side} lists testcases but no totals")
    if (verdict.verdict is Verdict.BLOCKED) != (result.status is RunStatus.BLOCKED):
        problems.append(f"{side} claims {claimed} but its sandbox status is {result.status.value}")
    statuses = worst_by_id(verdict.testcases).values()
    failing = sum(1 for s in statuses if s in FAILING)
    executed = sum(1 for s in statuses if s in EXECUTED)
    if verdict.verdict in (Verdict.PASS, Verdict.FAIL):
        if result.status is not RunStatus.COMPLETED:
            problems.append(f"{side} claims {claimed} but its sandbox status is {result.status}")
        if result.report is not ReportStatus.RETURNED or verdict.totals is None:
            problems.append(f"{side} claims {claimed} without a report")
    if verdict.verdict is Verdict.PASS:
        if failing:
            problems.append(f"{side} claims PASS with {failing} failed or errored test(s)")
        if executed == 0:
            problems.append(f"{side} claims PASS but executed zero tests")
        if result.exit_code != 0:
            problems.append(f"{side} claims PASS but the runner exited {result.exit_code}")
    elif verdict.verdict is Verdict.FAIL and not failing:
        problems.append(f"{side} claims FAIL without a failed or errored test")
    elif (
        verdict.verdict is Verdict.NOT_PROVEN
        and failing
        and result.status is RunStatus.COMPLETED
        and result.report is ReportStatus.RETURNED
        and not _only_load_failures(verdict)
    ):
        problems.append(f"{side} claims NOT_PROVEN although its report shows failing tests")
    return problems


def _only_load_failures(verdict: VerdictFile) -> bool:
    """Every failing testcase is a test file that could not load: the verifier says NOT PROVEN
    when each names a module the tree lacks (the image's gap, ``verify.missing_deps``). Which
    module is not in verdict.json for pytest, so this side cannot re-check it; a forgery that
    uses this can only turn such a FAIL neutral, as the PR's own code could in the sandbox."""
    failing = [c for c in verdict.testcases if c.status in FAILING]
    return bool(failing) and all(is_load_failure(c) for c in failing)


def _side_distrust(verdict: VerdictFile, side: str) -> list[str]:
    """Why a side cannot be evidence for VERIFIED (as ``verify.compare.Side.distrust``)."""
    result = verdict.sandbox
    statuses = worst_by_id(verdict.testcases).values()
    failed = any(s in FAILING for s in statuses)
    problems = []
    if verdict.verdict not in (Verdict.PASS, Verdict.FAIL):
        problems.append(f"the {side} run was itself {verdict.verdict.value}")
    if result.status is not RunStatus.COMPLETED:
        problems.append(f"a run did not complete ({side}: {result.status.value})")
    if not any(s in EXECUTED for s in statuses):
        problems.append(f"the {side} run executed zero tests")
    if failed == (result.exit_code == 0):
        problems.append(
            f"the {side} runner's exit code {result.exit_code} disagrees with its report"
        )
    return problems


def compare_problems(result: CompareResult, head_sha: str, whole: Whole | None = None) -> list[str]:
    """Where a comparison contradicts itself, either of its runs, or the trusted event.
    ``whole``: each run's every result, from the artifact's listings (``listing_intake``)."""
    runs = whole or Whole.of(result)
    if result.head_sha != head_sha:
        return ["the comparison's head commit is not the verify run's head commit"]
    problems: list[str] = []
    if result.base_sha == result.head_sha:
        problems.append("the comparison's base and head are the same commit")
    listed = (runs.before, runs.head) if runs.wide else (None, None)
    problems += run_problems(result.before, "the base run", listed[0])
    problems += run_problems(result.head, "the head run", listed[1])
    if result.removed_run is not None:
        problems += run_problems(result.removed_run, "the removed tests' run")
    if result.before.patch_coverage is not None or result.head.patch_coverage is not None:
        problems.append("a compared run carries patch coverage (the comparison holds it)")
    problems += coverage_problems(result.patch_coverage, "the comparison", with_proof=True)
    problems += transition_problems(result, runs)
    if result.verdict is CompareVerdict.VERIFIED:
        gaps = _verified_gaps(result, runs)
        problems += [f"the comparison claims VERIFIED although {p}" for p in gaps]
    elif result.verdict is CompareVerdict.NOTHING_TO_PROVE:
        gaps = _nothing_gaps(result, runs)
        problems += [f"the comparison claims NOTHING_TO_PROVE although {p}" for p in gaps]
    return problems


def _verified_gaps(result: CompareResult, runs: Whole) -> list[str]:
    """What is missing for VERIFIED, from the comparison's own data."""
    gaps = [
        count(result.transitions).fail_to_pass == 0 and "no test fails on base and passes on head",
        bool(result.harness_files_changed)
        and not result.strict_harness
        and "harness files changed without strict harness",
    ]
    gaps += changed_code_gaps(result)
    return [g for g in gaps if g] + _unloaded_gaps(result) + _clean_gaps(result, runs)


def _unloaded_gaps(result: CompareResult) -> list[str]:
    """Head's test files that could not load (as ``verify.unloaded``): VERIFIED only when
    each failed to load, with the same message, in base's own run and in the base run too,
    the PR does not change it (by the comparison's own listing of the changed paths, whole),
    and its message names no path the PR changes."""
    on_head = load_failed_files(result.head.testcases)
    if on_head == {}:
        return []
    if on_head is None:
        return ["a test file that failed to load on head has no path"]
    if result.base_own is None:
        return [f"head could not load {_files(on_head)} and base's own run is missing"]
    own = load_failed_files(result.base_own.testcases) or {}
    was = load_failed_files(result.before.testcases) or {}
    changed = [*result.test_paths, *result.code_paths]
    if max(len(result.test_paths), len(result.code_paths)) >= MAX_LISTED_PATHS:
        return [f"head could not load {_files(on_head)} and the changed paths are not all listed"]
    bad = [
        f
        for f, text in on_head.items()
        if f in changed or own.get(f) != text or was.get(f) != text or names_path(text, changed)
    ]
    if bad:
        return [
            f"head could not load {_files(bad)}, not shown to fail alike in base's own run "
            "and the base run, untouched by the PR"
        ]
    return []


def forgiven_unloaded(result: CompareResult | None) -> tuple[str, ...]:
    """The head test files a VERIFIED comparison forgave for not loading (the trust step checks
    them against GitHub's listing of the PR's files)."""
    if result is None or result.verdict is not CompareVerdict.VERIFIED:
        return ()
    return tuple(sorted(load_failed_files(result.head.testcases) or ()))


def _files(files: Iterable[str]) -> str:
    names = sorted(files)
    return ", ".join(n[:150] for n in names[:3]) + (
        f" and {len(names) - 3} more" if len(names) > 3 else ""
    )


def _nothing_gaps(result: CompareResult, runs: Whole) -> list[str]:
    """What is missing for NOTHING_TO_PROVE (as ``verify.nothing.gaps``): a clean comparison
    with no FAIL_TO_PASS, a suite that passes on both sides, every test that passed on base
    passing on head, and no test or harness file of base changed."""
    before, head = runs.before, runs.head
    broke = [i for i, s in before.items() if s is TestStatus.PASSED and head.get(i) is not s]
    gaps = [
        count(result.transitions).fail_to_pass > 0 and "a test fails on base and passes on head",
        (result.before.verdict, result.head.verdict) != (Verdict.PASS, Verdict.PASS)
        and "the suite does not pass on both sides",
        bool(broke) and f"{len(broke)} test(s) that pass on base do not pass on head",
        bool(result.harness_files_changed) and "harness files changed",
        bool(result.edited_test_paths) and "base's own run was needed: the PR changes its tests",
        bool(result.test_changed) and "tests changed, not the code",
        bool(result.flaky) and "tests are flaky",
        bool(result.expected_failure_markers) and "the PR adds expected-failure markers",
        bool(result.conflicts) and "head does not merge cleanly",
    ]
    return [g for g in gaps if g] + _clean_gaps(result, runs)


def _clean_gaps(result: CompareResult, runs: Whole) -> list[str]:
    """What neither VERIFIED nor NOTHING_TO_PROVE may have: a regressed, removed, newly
    skipped or newly expected-to-fail test, or a run that cannot be evidence."""
    c = count(result.transitions)
    removed = unexcused(result, gone_ids(result, runs)[0], runs)
    skipped_on_head = [
        t
        for t in result.transitions
        if t.transition is Transition.SKIPPED
        and t.head is TestStatus.SKIPPED
        and t.before is not TestStatus.SKIPPED
    ]
    newly_expected = [
        t
        for t in result.transitions
        if t.transition is Transition.EXPECTED_FAILURE
        and t.head is TestStatus.EXPECTED_FAILURE
        and t.before in EXECUTED
    ]
    gaps = [
        c.pass_to_fail > 0 and "a test regressed",
        bool(removed) and "a test was removed",
        bool(skipped_on_head) and f"{len(skipped_on_head)} test(s) of base are skipped on head",
        bool(newly_expected)
        and f"{len(newly_expected)} test(s) of base are expected to fail on head",
    ]
    found = [g for g in gaps if g] + _own_gaps(result, runs) + claim_problems(result, runs)
    found += _side_distrust(result.before, "base") + _side_distrust(result.head, "head")
    return found


def _own_gaps(result: CompareResult, runs: Whole) -> list[str]:
    """What base's own run shows against the PR (as ``verify.pairing.findings``), and its
    absence where the paths the PR changes on both sides needed it."""
    needed = result.edited_test_paths or result.other_paths
    if result.base_own is None:
        missing = "base's own run is missing, yet the PR changes paths of both sides"
        return [missing] if needed else []
    own, before, head = runs.base_own, runs.before, runs.head
    broke = [i for i, s in own.items() if s is TestStatus.PASSED and head.get(i) in FAILING]
    gone = unexcused(result, [i for i in own if i not in before and i not in head], runs)
    skipped = not_run_required(result, runs)
    gaps = [
        bool(broke) and f"{len(broke)} test(s) that pass in base's own run fail on head",
        bool(gone) and f"{len(gone)} test(s) of base's own run are gone on both sides",
        bool(skipped)
        and f"base's own run did not run {len(skipped)} test(s) the verdict reads from it "
        f"({_files(skipped)})",
    ]
    return [g for g in gaps if g]


def not_run_required(result: CompareResult, whole: Whole | None = None) -> list[str]:
    """The tests base's own run lists as not run (collected, not run by id) that the rule of
    ``verify.base_own`` runs: those that did not pass on before or on head, those of the test
    files the PR edits or deletes, and those below a conftest it changes. A test the run's
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
