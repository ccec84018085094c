"""Base's own run (base's code with base's tests): a collection of the whole of base, then a run
by id of only what the verdict reads from it.

What the verdict reads from base's own run (``pairing``): how the tests that did not pass on
head or on before stood on base (a regression, a test newly skipped or expected to fail, a
FAIL_TO_PASS test that passed there), the tests of every test file of base the PR edits or
deletes (a test changed, not the code), the test files base could not load (``unloaded``), and
base's ids, all of them: a test of base that neither before nor head has is gone, wherever the
PR removed it from (a mixin inherited by an untouched class, a file moved to the code side).

So, where the runner can list its tests as a run names them (pytest: ``PytestRunner.
collect_command``, a collect-only run whose report names every item exactly as a run does):
1. the collection runs over the whole of base (its ids and its load errors), beside before and
   head;
2. as soon as it has ended, what base's own run will surely run starts, beside before and head:
   by id, every collected test of a file the PR edits and every file base could not load (its
   load error again, in the run's own report), with the tests the collection found marked to
   be skipped or to fail (``COLLECTED_MARKED``: they most likely pass on neither side; one that
   does is run all the same, a result more, which may only add caution); or the whole run,
   when the collection already rules out a run by id;
3. once before and head have ended, the ids they name are known: every other collected test
   that did not pass on either side runs by id in a second process (none when there is none),
   and the two processes are read as one run (``joined``: only when each was judged on its
   tests alone, else the whole selection runs again as one process);
4. the run's results and the collection are merged: each collected test the run did not run is
   listed as ``not-run`` (never a result: not a pass, not a failure, not executed).
A selected test missing from the run's report (an id the selector does not reach as the
collection named it), a collection that cannot be read, or a selection the command line cannot
hold gives base's own run whole, as before: never a narrower one.

Where the runner has no such list (jest, vitest, bun, an own command) base's own run is whole.
What this gives up (docs/threat-model.md): a test in a file the PR does not touch that fails on
base and passes on before and head (a data or golden rewrite) is not run, so not reported as a
test changed, not the code; it never was a proof.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from verify_pr.contract import new_report_path
from verify_pr.models.report import EXECUTED, TestCase, TestReport, TestStatus, Totals
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.verdict import MAX_REASONS, REASON_MAX_CHARS, Verdict, VerdictFile
from verify_pr.runners.base import COLLECTED_MARKED, Argv
from verify_pr.verify.pairing.unloaded import load_failures
from verify_pr.verify.runs.select import modules_in, pytest_node_id
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan, listed_testcases
from verify_pr.verify.runs.testcases import is_load_failure, statuses

MAX_COMMAND = 60_000  # under the sandbox's 65536-character cap for --cmd

Job = tuple[Path, SuitePlan]
Submit = Callable[[Job], "Future[SuiteOutcome]"]


def collect_plan(whole: SuitePlan) -> SuitePlan | None:
    """The collection of the whole of base, or None where the runner cannot list its tests as
    a run names them (base's own run is then whole)."""
    runner = whole.runner
    if runner is None or whole.parse_name != runner.name:
        return None
    command = runner.collect_command(whole.command)
    if command is None:
        return None
    path = new_report_path(".xml")
    command = command.replace(whole.report_path, path)
    return SuitePlan(runner, command, path, whole.parse_name, whole.probed)


@dataclass(frozen=True)
class Collected:
    """Base's whole collection: its tests by id, the files it could not load, and the tests it
    found marked to be skipped or to fail."""

    cases: dict[str, TestCase]
    unloadable: tuple[str, ...]
    marked: frozenset[str] = frozenset()


def collected(outcome: SuiteOutcome) -> Collected | None:
    """The collection's tests and load failures; None when it cannot be read as one (then base's
    own run is whole)."""
    from verify_pr.runners.detect import all_runners

    # the skip message of a collection (a runner's that can collect)
    messages = {m for runner in all_runners() if (m := runner.collected_message()) is not None}
    marked_messages = {m + COLLECTED_MARKED for m in messages}
    known = messages | marked_messages
    report = outcome.report
    if report is None or outcome.verdict.sandbox.status is not RunStatus.COMPLETED:
        return None
    unloadable = load_failures(outcome)
    if unloadable is None:
        return None  # a load failure without a file: nothing to run it again by
    cases: dict[str, TestCase] = {}
    marked = set()
    for case in report.testcases:
        if is_load_failure(case) or (case.status is TestStatus.ERROR and case.file in unloadable):
            continue
        if case.status is not TestStatus.SKIPPED or case.message not in known:
            return None  # not what the collection writes: something else wrote the report
        cases[case.id] = case
        if case.message in marked_messages:
            marked.add(case.id)
    return Collected(cases, tuple(sorted(unloadable)), frozenset(marked))


@dataclass(frozen=True)
class Selection:
    ids: tuple[str, ...]  # collected tests to run by id
    files: tuple[str, ...]  # test files base could not load: run again for their load error
    argv: Argv  # the words that select them
    words: tuple[str, ...] = ()  # each id's word, in the order of ``ids``


def select(
    found: Collected,
    sides: Sequence[VerdictFile],
    edited: Collection[str],
    base_tree: Path,
    likely: Collection[str] = (),
) -> Selection | None:
    """What the verdict reads from base's own run: every collected test that did not pass on
    one of ``sides`` (before as paired, its load failures expanded onto head's tests; head),
    whose file is among ``edited`` or below a conftest among them, and the files base could
    not load; with the ``likely`` ones (not yet known not to pass). None when one cannot be
    selected by id, or the command line cannot hold them."""
    import shlex

    unpassed: set[str] = set(likely)
    for side in sides:
        unpassed |= {i for i, s in statuses(side).items() if s is not TestStatus.PASSED}
    edited_set = set(edited)
    # a conftest the PR changes reaches every test below its folder: they run too
    scopes = tuple(
        str(PurePosixPath(p).parent).removeprefix(".") for p in edited if _is_conftest(p)
    )
    chosen = [
        case
        for test_id, case in found.cases.items()
        if test_id in unpassed or case.file in edited_set or _below(case.file, scopes)
    ]
    is_module = modules_in(base_tree)
    words = []
    for case in chosen:
        node = pytest_node_id(case, is_module)
        if node is None or node.startswith("-"):
            return None
        words.append(node)
    words += [f for f in found.unloadable if not f.startswith("-")]
    if len(words) != len(chosen) + len(found.unloadable):
        return None
    argv = tuple(dict.fromkeys(words))
    if len(shlex.join(argv)) > MAX_COMMAND // 2:
        return None
    return Selection(
        tuple(c.id for c in chosen), found.unloadable, argv, tuple(words[: len(chosen)])
    )


def rest(selection: Selection, first: Selection) -> Selection | None:
    """What ``selection`` holds beyond ``first`` (a run by id already started): its other tests,
    by the same words. ``first`` may hold tests ``selection`` does not (a marked test that passed
    on both sides): they stay run, a result more. None when the two cannot be two processes of
    one run: they run different files base could not load, or a word of the rest would select a
    test ``first`` runs too."""
    if first.files != selection.files:
        return None
    ids, words = [], []
    for test_id, word in zip(selection.ids, selection.words, strict=True):
        if test_id not in first.ids:
            ids.append(test_id)
            words.append(word)
    if set(words) & set(first.argv):
        return None
    return Selection(tuple(ids), (), tuple(dict.fromkeys(words)), tuple(words))


def seems_whole(found: Collected, before: VerdictFile, changed: Collection[str]) -> bool:
    """Whether the collection holds every test the before run ran from a file the PR does not
    change (base's file on both: base's collection must name it alike). A collection short of
    one (a plugin that collects nothing when asked to list, ids that follow a changed data or
    conftest file) is not trusted to be whole: base's own run is then whole."""
    changed_set = set(changed)
    return all(
        case.id in found.cases
        for case in before.testcases
        if case.file is not None
        and case.file not in changed_set
        and not is_load_failure(case)
        and case.status is not TestStatus.NOT_RUN
    )


def _is_conftest(path: str) -> bool:
    return PurePosixPath(path).name == "conftest.py"


def _below(file: str | None, folders: tuple[str, ...]) -> bool:
    return file is not None and any(not f or file.startswith(f"{f}/") for f in folders)


def by_id_plan(whole: SuitePlan, selection: Selection) -> SuitePlan | None:
    """Base's own command with the selection as its arguments (None: too long a command)."""
    path = new_report_path(".xml")
    shell = whole.shell.replace(whole.report_path, path)
    plan = SuitePlan(whole.runner, shell, path, whole.parse_name, whole.probed, argv=whole.argv)
    plan = plan.adding(("--", *selection.argv))
    return None if len(plan.command) > MAX_COMMAND else plan


def merge(
    found: Collected, selection: Selection, ran: SuiteOutcome | None, collection: SuiteOutcome
) -> SuiteOutcome | None:
    """The run by id's results with every other collected test listed as not run. None when the
    run did not give a result for each selected test and load failure of each selected file."""
    results: tuple[TestCase, ...] = ()
    if ran is None:  # nothing was selected: the collection alone
        ran = collection
    else:
        if ran.report is None or ran.verdict.sandbox.status is not RunStatus.COMPLETED:
            return None
        results = ran.report.testcases
        got = {c.id for c in results}
        if any(i not in got for i in selection.ids):
            return None
        failed_loading = load_failures(ran) or {}
        if any(f not in failed_loading for f in selection.files):
            return None
    got = {c.id for c in results}
    not_run = tuple(
        case.model_copy(update={"status": TestStatus.NOT_RUN, "message": None})
        for test_id, case in found.cases.items()
        if test_id not in got
    )
    report = ran.report
    assert report is not None  # noqa: S101 (the collection's was checked in ``collected``)
    testcases = (*results, *not_run)
    merged = TestReport(
        format=report.format,
        runner=report.runner,
        runner_version=report.runner_version,
        testcases=testcases,
        red_flags=report.red_flags if results else (),
        totals=Totals.count(testcases),
    )
    said = (
        f"base's own run by id: {len(selection.ids)} test(s) and {len(selection.files)} "
        f"file(s) that could not load, of {len(found.cases)} collected over the whole of "
        f"base; {len(not_run)} listed as not run"
    )
    verdict = ran.verdict.model_copy(
        update={
            "testcases": listed_testcases(merged),
            "totals": merged.totals,
            # last: the run's own first reason keeps its place (``image_gap_as_fail`` reads it)
            "reasons": (*ran.verdict.reasons[: MAX_REASONS - 1], said[:REASON_MAX_CHARS]),
        }
    )
    return SuiteOutcome(verdict, ran.run, merged, ran.tamper)


def joined(first: SuiteOutcome, second: SuiteOutcome) -> SuiteOutcome | None:
    """Two processes of one run by id as one run: the results of both, the files base could not
    load from ``first`` alone (it ran them; their texts are in its report), the verdict, sandbox
    and exit of the one that failed, else of one that ran a test. None (the selection then runs
    as one process) unless both completed with a report of tests that neither shares nor shows
    a load failure, and each was judged on its tests alone: PASS, FAIL, or nothing executed in
    a clean report (a process of skipped tests), which the other's tests decide, as a single
    process over both would."""
    parts = (first, second)
    first_report, second_report = first.report, second.report
    if first_report is None or second_report is None or not all(map(_judged_alone, parts)):
        return None
    if {c.id for c in first_report.testcases} & {c.id for c in second_report.testcases}:
        return None
    if any(is_load_failure(c) for c in second_report.testcases):
        return None
    testcases = (*first_report.testcases, *second_report.testcases)
    report = first_report.model_copy(
        update={
            "testcases": testcases,
            "red_flags": tuple(dict.fromkeys((*first_report.red_flags, *second_report.red_flags))),
            "totals": Totals.count(testcases),
        }
    )
    order = (Verdict.FAIL, Verdict.PASS, Verdict.NOT_PROVEN)
    deciding = min(parts, key=lambda p: order.index(p.verdict.verdict))
    output = first.run.output + b"\n" + second.run.output  # both, as each wrote it
    run = replace(deciding.run, output=output, report=first.run.report, coverage=None)
    return SuiteOutcome(deciding.verdict, run, report, first.tamper)


def _judged_alone(part: SuiteOutcome) -> bool:
    """Completed, and judged PASS or FAIL, or NOT_PROVEN only for executing nothing: a clean
    report of skipped tests whose runner exited 0."""
    verdict, report = part.verdict, part.report
    if verdict.sandbox.status is not RunStatus.COMPLETED or report is None:
        return False
    if verdict.verdict in (Verdict.PASS, Verdict.FAIL):
        return True
    statuses = report.worst_by_id().values()
    return (
        verdict.verdict is Verdict.NOT_PROVEN
        and not report.red_flags
        and verdict.sandbox.exit_code == 0
        and not any(s in EXECUTED for s in statuses)  # a failure is executed too
    )


def nothing_ran(outcome: SuiteOutcome | None) -> bool:
    """Base's own run is the collection alone: nothing the verdict reads needed a run."""
    report = outcome.report if outcome is not None else None
    return report is not None and all(c.status is TestStatus.NOT_RUN for c in report.testcases)


class OwnRun:
    """Base's own run as the compare's pool runs it: ``first_job`` starts with before and head
    (the collection, or the whole run); as soon as the collection has ended, the tests of the
    files the PR edits start by id (they need no side's result: ``started``); ``submit``, once
    before and head have ended, runs the rest of what they name as a second process (none
    when the first holds it all); ``result`` the merged outcome. Where the two cannot be one
    run (``rest``, ``joined``) the selection runs again as one process, and where that falls
    short, base's own run is whole."""

    def __init__(
        self, whole: SuitePlan, base_tree: Path, edited: Sequence[str], changed: Sequence[str]
    ) -> None:
        self.whole = whole
        self.collect = collect_plan(whole)
        self.base_tree = base_tree
        self.edited = tuple(edited)
        self.changed = tuple(changed)  # every path the PR changes
        self._first: Future[SuiteOutcome] | None = None
        self._ran: Future[SuiteOutcome] | None = None
        self._found: tuple[Collected, Selection, SuiteOutcome] | None = None
        self._submit: Submit | None = None
        # the edited files' run by id, started when the collection ended (``_start_early``)
        self._lock = threading.Lock()
        self._early_tried = False
        # (what it selects, or None for the whole run; its future)
        self._early: tuple[Selection | None, Future[SuiteOutcome]] | None = None
        # the second process of the run by id, and the whole selection as one process (run
        # when the two cannot be read as one run)
        self._second: tuple[Future[SuiteOutcome], SuitePlan] | None = None

    def again(self, edited: Sequence[str]) -> OwnRun:
        """Base's own run once more (a path moved to the test side), its collection kept."""
        other = OwnRun(self.whole, self.base_tree, edited, self.changed)
        if self.collect is not None and self._first is not None:
            other.collect, other._first = self.collect, self._first
            other._early_tried = True  # one process, by what before and head name
        return other

    def first_job(self) -> Job:
        """The job to start with before and head: the collection, or the whole run."""
        return (self.base_tree, self.collect or self.whole)

    def started(self, future: Future[SuiteOutcome], submit: Submit) -> None:
        """``first_job`` runs as ``future``: the edited files' tests follow it at once."""
        self._first, self._submit = future, submit
        if self.collect is not None:
            future.add_done_callback(self._on_collected)

    def _on_collected(self, _done: Future[SuiteOutcome]) -> None:
        # a callback's error would only be logged by concurrent.futures: ``submit`` reads the
        # collection again on the compare's own thread, where the same error is raised
        with contextlib.suppress(Exception):
            self._start_early()

    def _start_early(self) -> None:
        """What base's own run will surely run, as soon as the collection has ended (once,
        from the collection's callback or from ``submit``, whichever comes first): the tests of
        the files the PR edits, by id (the verdict reads them whatever before and head show),
        with the tests the collection found marked to be skipped or to fail (most likely read
        too: they will not pass on either side),
        or the whole run when the collection already rules out a run by id (it cannot be read,
        or those tests cannot be selected: the full selection holds them). Either then shares
        the cores with before and head instead of running alone after them."""
        with self._lock:
            if self._early_tried or self._first is None or self._submit is None:
                return
            self._early_tried = True
            first = self._first
            if first.cancelled() or first.exception() is not None:
                return
            found = collected(first.result())
            selection = None
            if found is not None:
                selection = select(found, (), self.edited, self.base_tree, found.marked)
                if selection is None and found.marked:  # the marked ones alone are too many
                    selection = select(found, (), self.edited, self.base_tree)
            if selection is not None and not selection.argv:
                return  # nothing is sure yet: before and head name what runs
            plan = by_id_plan(self.whole, selection) if selection else None
            try:
                if selection is None or plan is None:
                    self._early = (None, self._submit((self.base_tree, self.whole)))
                else:
                    self._early = (selection, self._submit((self.base_tree, plan)))
            except RuntimeError:
                return  # the pool is closing: the compare is ending without a verdict

    def submit(self, sides: tuple[SuiteOutcome, SuiteOutcome], submit: Submit) -> None:
        """Once before and head (``sides``) have ended: the run by id of what they name."""
        self._submit = submit
        if self._first is None:
            self._first = submit(self.first_job())
            self._early_tried = True  # nothing to start early: one process by what they name
        if self.collect is None:
            self._ran = self._first  # whole: nothing to select
            return
        from verify_pr.verify.pairing.pairing import pair

        collection = self._first.result()
        self._start_early()
        found = collected(collection)
        before, head = sides
        paired = (pair(before, head).before, head.verdict)  # as the result lists them
        if found is not None and not seems_whole(found, before.verdict, self.changed):
            found = None
        selection = select(found, paired, self.edited, self.base_tree) if found else None
        plan = by_id_plan(self.whole, selection) if selection and selection.argv else None
        early = self._early
        if found is None or selection is None or (selection.argv and plan is None):
            if early is not None and early[0] is None:
                self._ran = early[1]  # started whole when the collection ended
            else:
                self._ran = submit((self.base_tree, self.whole))
            return
        self._found = (found, selection, collection)
        first = early[0] if early is not None else None
        second = rest(selection, first) if first is not None else None
        if early is not None and second is not None:
            later = by_id_plan(self.whole, second) if second.argv else None
            if not second.argv or later is not None:
                self._ran = early[1]
                if later is not None and plan is not None:
                    self._second = (submit((self.base_tree, later)), plan)
                return
        self._ran = submit((self.base_tree, plan)) if plan is not None else None  # one process

    def done(self) -> bool:
        parts = (self._ran, self._second[0] if self._second else None)
        return all(part is None or part.done() for part in parts)

    def result(self) -> SuiteOutcome:
        if self._found is None:
            assert self._ran is not None  # noqa: S101 (submit set one)
            return self._ran.result()
        found, selection, collection = self._found
        ran = self._ran.result() if self._ran is not None else None
        if self._second is not None and ran is not None:
            second, one_process = self._second
            ran = joined(ran, second.result())
            if ran is None:  # the two processes cannot be read as one run: one process
                ran = self._submit_job((self.base_tree, one_process)).result()
        merged = merge(found, selection, ran, collection)
        if merged is not None:
            return merged
        return self._submit_job((self.base_tree, self.whole)).result()  # fell short: whole

    def _submit_job(self, job: Job) -> Future[SuiteOutcome]:
        assert self._submit is not None  # noqa: S101 (``submit`` set it)
        return self._submit(job)
