"""Head's test files that cannot load: forgiven only when they never loaded before the PR either.

A head run whose report shows a test file that failed to load is refused as evidence
(``compare.Side.distrust``): a PR can break an untouched test file's import (through a helper,
a conftest, or the code it imports) to hide that file's failures behind "did not load". Some
projects ship a file that cannot load on base as on head (a stale ES-module copy jest cannot
read, a test of a module the project dropped); refusing those would make such a project
never VERIFIED. A head load failure of file F is forgiven only when all of these hold:

- the PR does not change F (it is not among the changed paths);
- F fails to load in base's own run (base's code with base's tests: nothing of the PR), and in
  the before run (base's code with the PR's tests: a test helper the PR changes is in it);
- the three load errors are the same text (the runner's message; pytest's last ``E`` line),
  so the failure stops at the same place: what the PR changed is not what fails;
- the error names no path the PR changes (a stack through the PR's module).

Then F's tests never ran before the PR either: no result of base is hidden. A load failure
with no file, or any one file not forgiven, forgives none: the head run stays refused, with a
reason naming each file. Pure: takes the runs, returns data. Whether one file is forgiven is
the policy's (``policy.unloaded.why_not``): the publish job asks it of the artifact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from verify_pr.models.loadfail import load_failed_files
from verify_pr.models.report import ReportFormat, TestReport
from verify_pr.policy.unloaded import why_not
from verify_pr.verify.suite import SuiteOutcome


@dataclass(frozen=True)
class Unloaded:
    """What the head run's load failures come to."""

    files: tuple[str, ...] = ()  # head's test files that failed to load
    forgiven: frozenset[str] = frozenset()  # all of ``files`` when every one is, else empty
    reasons: list[str] = field(default_factory=list)  # why each file that is not, is not


def load_failures(outcome: SuiteOutcome | None) -> dict[str, str] | None:
    """file -> load error text of each test file the run could not load; None when there is
    no report, or a load failure has no file (it cannot be matched to anything)."""
    if outcome is None or outcome.report is None:
        return None
    return load_failed_files(outcome.report.testcases, _junit_texts(outcome, outcome.report))


def _junit_texts(outcome: SuiteOutcome, report: TestReport) -> Mapping[str, str]:
    from verify_pr.verify.loaderrors import load_error_texts

    if report.format is not ReportFormat.JUNIT:
        return {}
    return load_error_texts(outcome.run.report)


def untouched(head: SuiteOutcome, changed: Sequence[str]) -> set[str]:
    """head's test files that could not load and the PR does not change (what base's own run,
    whole, must be asked about)."""
    return set(load_failures(head) or ()) - set(changed)


def unplaced(outcome: SuiteOutcome, tree: Path) -> set[str]:
    """The run's load failures that name no path of ``tree``: a package that did not build
    (go's stand-in names the package), which holds tests of files the PR may not change. Only
    base's own run tells those (they passed before the PR) from the PR's new tests."""
    from verify_pr.sandbox.tree_files import exists

    return {f for f in load_failures(outcome) or () if not exists(tree, f)}


def judge(
    before: SuiteOutcome,
    head: SuiteOutcome,
    base_own: SuiteOutcome | None,
    changed: Sequence[str] | None,
) -> Unloaded:
    """Which of head's load failures predate the PR (see the module's rules). ``changed`` is
    every path the PR changes; None (not known) forgives nothing."""
    # every case that may stand for a file that did not load, flagged or not: the publish job
    # sees the testcases, not the flags, and asks the same of each (``policy``)
    on_head = load_failures(head)
    if not on_head:
        return Unloaded()
    files = tuple(sorted(on_head))
    own, was = load_failures(base_own), load_failures(before)
    changed_set = set(changed or ())
    reasons = []
    for file in files:
        why = why_not(file, on_head[file], own, was, changed, base_own is None)
        if why is not None:
            reasons.append(
                f"the head run could not load the test file {file[:200]}, which the PR does "
                f"not change, and it cannot be shown to predate the PR: {why}; a PR can break "
                "a test file's import to hide its failures"
                if file not in changed_set
                else f"the head run could not load the test file {file[:200]}: {why}"
            )
    return Unloaded(files, frozenset() if reasons else frozenset(files), reasons)
