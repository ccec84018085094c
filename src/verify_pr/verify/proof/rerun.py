"""The proof's re-runs: each FAIL_TO_PASS test re-run by id, N times on each side.

A test counts as turned green only if it fails every time on base's code (with the PR's
tests) and passes every time on head, apart from the rest of the suite: order-dependent
failures and flakes drop out. The selectable tests run together, one runner process per side
and repetition (each re-run pays a runner's start-up), or, where the runner repeats a
selection in one process with each repetition isolated as it isolates test files (jest:
``select.repeated_selector``), one runner process per side running them one after the other.
Every run of both sides is handed to the sandboxes at once, so none waits for the slowest
run of the one before it: the runs are judged in the order they were made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from verify_pr.contract import new_report_path
from verify_pr.models.report import FAILING, STATUS_RANK, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.runners.base import Argv, Runner
from verify_pr.verify.runs.select import batch_selector, modules_in, repeated_selector
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan
from verify_pr.verify.runs.testcases import is_load_failure, worst_cases

MAX_RERUN_IDS = 10

# Runs each (tree, plan) job in its own sandbox; outcomes in job order.
RunJobs = Callable[[list[tuple[Path, SuitePlan]]], list[SuiteOutcome]]


class _Standing(StrEnum):
    CONFIRMED = "confirmed"
    FLAKY = "flaky"
    UNCONFIRMED = "unconfirmed"


@dataclass(frozen=True)
class Confirmation:
    checked: bool = False
    flaky: tuple[str, ...] = ()
    unconfirmed: tuple[str, ...] = ()
    # the FAIL_TO_PASS tests that were re-run (the first MAX_RERUN_IDS): what the verdict's
    # reason and each proof's ``reruns`` may claim, and no more
    rerun: tuple[str, ...] = ()
    # of those, the ones re-run with the whole suite: no selector reaches their id
    whole: tuple[str, ...] = ()
    # every re-run made, with the tests it re-ran: what ``ran_changed`` reads
    runs: tuple[Rerun, ...] = field(default=(), compare=False)
    # why re-runs of unconfirmed tests gave no result: each that timed out or did not
    # complete, with its side and limit (the reason names them: ``compare.decide``)
    unfinished: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rerun:
    """One re-run: the tests it selected (all of them: its data is theirs together), on
    which side, whether it ran the whole suite (no selector), and what came back."""

    ids: tuple[str, ...]
    on_before: bool
    whole: bool
    outcome: SuiteOutcome


@dataclass(frozen=True)
class _Group:
    """Tests re-run together: the words that select them (none: the whole suite), and how
    many repetitions each run of a side holds (1: a runner process per repetition)."""

    argv: Argv
    cases: list[TestCase]
    times: int = 1


@dataclass(frozen=True)
class _Run:
    job: tuple[Path, SuitePlan]
    want_failure: bool  # before: base's code


def confirm(
    plan: SuitePlan,
    before_tree: Path,
    after_tree: Path,
    head: SuiteOutcome,
    f2p: Sequence[str],
    flake_runs: int,
    run_all: RunJobs,
) -> Confirmation:
    """Re-run the first ``MAX_RERUN_IDS`` of the FAIL_TO_PASS tests that can prove the fix
    (``pairing.Pairing.proofs``) ``flake_runs`` times per side."""
    if flake_runs == 0:
        return Confirmation()
    if not f2p:
        return Confirmation()
    head_cases = worst_cases(head.verdict)
    cases = [head_cases[test_id] for test_id in f2p[:MAX_RERUN_IDS]]
    # the PR's test files on both sides: a module named by a classname must be in both trees
    is_module = modules_in(before_tree, after_tree)
    together = [c for c in cases if batch_selector(plan.runner, [c], is_module) is not None]
    groups = []
    for alone in _apart(plan.runner, together):
        repeated = repeated_selector(plan.runner, alone, flake_runs)
        if repeated is not None:
            groups.append(_Group(repeated, alone, flake_runs))
        else:
            argv = batch_selector(plan.runner, alone, is_module) or ()
            groups.append(_Group(argv, alone))
    # an own command (or a name no selector can reach) re-runs whole, one test at a time:
    # flakes still show, an order-dependent failure may not (the reason says so: ``claim``)
    whole = [c for c in cases if c not in together]
    groups += [_Group((), [c]) for c in whole]
    trees = (before_tree, after_tree)
    planned = [_runs(plan, group, trees, flake_runs) for group in groups]
    # every group's every run at once: the sandboxes take them as slots free up
    outcomes = iter(run_all([run.job for runs in planned for run in runs]))
    outcome: dict[str, _Standing] = {}
    made: list[Rerun] = []
    unfinished: list[str] = []
    for group, runs in zip(groups, planned, strict=True):
        done = [(next(outcomes), run) for run in runs]
        standings = _standings(group, done)
        outcome |= standings
        ids = tuple(c.id for c in group.cases)
        made += [Rerun(ids, run.want_failure, not group.argv, o) for o, run in done]
        if _Standing.UNCONFIRMED in standings.values():
            unfinished += _unfinished(ids, done, group.times)
    flaky = tuple(i for i, v in outcome.items() if v is _Standing.FLAKY)
    unconfirmed = tuple(i for i, v in outcome.items() if v is _Standing.UNCONFIRMED)
    ids = tuple(c.id for c in cases)
    whole_ids = tuple(c.id for c in whole)
    return Confirmation(
        True, flaky, unconfirmed, ids, whole_ids, tuple(made), tuple(dict.fromkeys(unfinished))
    )


def _unfinished(ids: Sequence[str], done: list[tuple[SuiteOutcome, _Run]], times: int) -> list[str]:
    """Each re-run of ``ids`` that did not complete, said with its side, its repetitions and
    its limit: "could not be re-run" alone hides a suite too slow for ``--timeout``."""
    first = ids[0][:80] + (f" and {len(ids) - 1} more" if len(ids) > 1 else "")
    found = []
    for outcome, run in done:
        result = outcome.verdict.sandbox
        if result.status is RunStatus.COMPLETED:
            continue
        side = "base's code with the PR's tests" if run.want_failure else "head"
        what = f"the re-run of {first} on {side}" + (f" ({times} repetitions)" if times > 1 else "")
        if result.status is RunStatus.TIMEOUT:
            found.append(f"{what} timed out after {result.timeout_s} s (the --timeout limit)")
        else:
            found.append(f"{what} did not complete: {result.detail or result.status}")
    return found


def _apart(runner: Runner | None, cases: list[TestCase]) -> list[list[TestCase]]:
    """The selectable cases in the runner processes that keep each proof's test file apart
    from the others: one process per file (pytest, vitest and bun import every file they are
    given into one process, where a sibling module's import-time patch of the code would
    stand under every proof), all at once for jest, which gives each file its own module
    registry and environment (``repeated_selector``)."""
    if not cases:
        return []
    if runner is not None and runner.isolates_files:
        return [cases]
    files: dict[str | None, list[TestCase]] = {}
    for case in cases:
        files.setdefault(case.file, []).append(case)
    return list(files.values())


def claim(
    proofs: Sequence[str], confirmation_ids: Sequence[str] | None, whole: Sequence[str], times: int
) -> str:
    """What the re-runs did, for the verdict's reason: no more than they did. ``confirmation_ids``
    are the proofs re-run (None: every one), ``whole`` those re-run with the whole suite (no
    selector reaches their id), each ``times`` per side."""
    if not times:
        return ""
    rerun = set(proofs) if confirmation_ids is None else set(confirmation_ids) & set(proofs)
    whole_set = set(whole) & rerun
    by_id = len(rerun - whole_set)
    parts = []
    if by_id:
        who = "each" if by_id == len(proofs) else f"{by_id} of them"
        if by_id < len(proofs) and not whole_set:
            who = f"the first {by_id}"  # MAX_RERUN_IDS: the others were not re-run
        parts.append(
            f"{who} confirmed by id without the rest of the suite {times} time(s) per side"
        )
    if whole_set:
        who = "each" if len(whole_set) == len(proofs) else f"{len(whole_set)} of them"
        parts.append(
            f"{who} re-ran with the whole suite {times} time(s) per side (no selector reaches "
            "its id: confirmed against flakes, not apart from the other tests)"
        )
    return "".join(f", {p}" for p in parts)


def _runs(plan: SuitePlan, group: _Group, trees: tuple[Path, Path], flake_runs: int) -> list[_Run]:
    """The runs that make ``flake_runs`` repetitions per side, in the order they count:
    repetition by repetition, before then after, each with its own report path."""
    suffix = plan.report_path[plan.report_path.rindex(".") :]
    runs = []
    for _ in range(flake_runs // group.times):
        for tree, want_failure in ((trees[0], True), (trees[1], False)):
            path = new_report_path(suffix)
            job = (tree, plan.reporting_to(path).adding(group.argv))
            runs.append(_Run(job, want_failure))
    return runs


def _standings(group: _Group, runs: list[tuple[SuiteOutcome, _Run]]) -> dict[str, _Standing]:
    """Each case keeps the first standing that is not CONFIRMED, in the order of the runs
    (each holding ``group.times`` repetitions)."""
    found = dict.fromkeys((c.id for c in group.cases), _Standing.CONFIRMED)
    for outcome, run in runs:
        for case in group.cases:
            if found[case.id] is _Standing.CONFIRMED:
                found[case.id] = _judge(outcome, case, run.want_failure, group.times)
    return found


def _judge(outcome: SuiteOutcome, case: TestCase, want_failure: bool, times: int) -> _Standing:
    if outcome.report is None or outcome.verdict.sandbox.status is not RunStatus.COMPLETED:
        return _Standing.UNCONFIRMED
    for status in _repetitions(outcome.report, case, want_failure, times):
        if status is None:
            return _Standing.UNCONFIRMED
        failed = status in FAILING
        if failed != want_failure or (not want_failure and status is not TestStatus.PASSED):
            return _Standing.FLAKY
    return _Standing.CONFIRMED


def _repetitions(
    report: TestReport, case: TestCase, want_failure: bool, times: int
) -> list[TestStatus | None]:
    """The case's status in each of the ``times`` repetitions the run made, in order (one
    run: the worst of its results under that id). The runner writes the repetitions one after
    the other, so each holds the same share of the id's results; results that do not split
    evenly are a repetition missing or extra: None, never a standing."""
    own = [c.status for c in report.testcases if c.id == case.id]
    if own:
        shares = _split(own, times)
        return [max(share, key=STATUS_RANK.__getitem__) for share in shares] if shares else [None]
    if want_failure:
        # its file could not load on base's code: that file's stand-in is the failure (only
        # its own file's: the re-run holds other files' tests too)
        stand_ins = [
            c.status for c in report.testcases if c.file == case.file and is_load_failure(c)
        ]
        if stand_ins:
            shares = _split(stand_ins, times)
            return [share[0] for share in shares] if shares else [None]
    return [None]


def _split(statuses: list[TestStatus], times: int) -> list[list[TestStatus]] | None:
    """``times`` equal shares in order, or None when they do not divide evenly."""
    if len(statuses) % times:
        return None
    size = len(statuses) // times
    return [statuses[i * size : (i + 1) * size] for i in range(times)]
