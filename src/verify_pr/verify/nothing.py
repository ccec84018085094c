"""NOTHING TO PROVE: a PR that fixes nothing and, as far as the suite can tell, breaks nothing.

``compare.decide`` asks this only when a comparison is clean but for one reason: no test fails
on base's code and passes on head. Then the PR may still be a docs change or a pure refactor,
which deserves a verdict of its own (exit 0, a ``success`` check) rather than NOT PROVEN. It is
given only when "broke nothing" can be said honestly, so each rule here closes a way to hide a
break behind a suite that passes on both sides:

- the suite passes on both sides: base's code with the PR's tests, and the PR's code (a test
  failing on both sides can hide a new failure behind the old one);
- every test that passed on base's code passes on head (a regression, a removed, skipped or
  expected-to-fail test is already a reason of ``decide``; this says it once more, whole);
- the PR changes no test path of base: base's own run was not needed (``compare_run`` runs it
  exactly when the PR edits or deletes a test path of base, or adds a conftest or data file
  beside the tests). A test weakened together with the code it tests passes on both sides;
- the PR changes no harness file, even with strict harness (head's tests then ran with base's
  harness: what the PR changed there was never run);
- no file of base the PR changes holds tests (a doctest rewritten with its code, a doctest
  text file), and no path base's rule called code turned out to hold tests;
- every changed file that is neither test nor code is documentation (by suffix: a data or
  configuration file the tests read runs in the PR's version on both sides, so a weakened
  tolerance or list of cases would pass on both).

New test modules are allowed: their tests ran on both sides. The PR's code still runs inside
its own test process, as for VERIFIED: a PR that forges its own results is not caught.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from verify_pr.models.report import TestStatus
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.verify.testcases import statuses

# The changed files that are neither test nor code run in the PR's version on both sides, so a
# test that reads one (a tolerance, a list of cases) is weakened on both; only documentation,
# which no test is expected to read, is let through (a doctest in it is a placed test).
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".adoc")
REASON = (
    "no test goes from failing to passing, and nothing that passed broke: {passed} test(s) "
    "pass on base's code and on head, none regressed, none was removed, skipped or marked "
    "expected to fail; the PR changes no test or harness file of base, and every run completed "
    "with a clean report. It proves no fix"
)


def _shown(items: Sequence[str]) -> str:
    shown = ", ".join(i[:150] for i in items[:3])
    return shown + (f" and {len(items) - 3} more" if len(items) > 3 else "")


def gaps(
    before: VerdictFile,
    head: VerdictFile,
    harness_changed: Sequence[str],
    base_own_ran: bool,
    with_tests: Sequence[str] = (),
    others: Sequence[str] = (),
) -> list[str]:
    """Why "broke nothing" cannot be claimed (empty: NOTHING TO PROVE). ``before``: base's
    code with the PR's tests, load failures expanded, as paired with ``head``; ``with_tests``:
    paths the PR changes that hold tests and are not new test modules; ``others``: the
    changed paths that are neither test nor code."""
    was, now = statuses(before), statuses(head)
    found = []
    if before.verdict is not Verdict.PASS or head.verdict is not Verdict.PASS:
        found.append(
            f"the suite does not pass on both sides (base's code: {before.verdict.value}, "
            f"head: {head.verdict.value}): it cannot show that the PR broke nothing"
        )
    broke = sorted(i for i, s in was.items() if s is TestStatus.PASSED and now.get(i) is not s)
    if broke:
        found.append(
            f"{len(broke)} test(s) pass on base's code and do not pass on head: {_shown(broke)}"
        )
    if base_own_ran:
        found.append(
            "the PR changes test paths of base (edits or deletes a test, or adds a conftest or "
            "data file beside them): a test changed with the code cannot show that it broke "
            "nothing"
        )
    if harness_changed:
        found.append(
            f"the PR changes {len(harness_changed)} harness file(s) ({_shown(harness_changed)}): "
            "the suite cannot show that it broke nothing"
        )
    held = sorted(set(with_tests))
    if held:
        found.append(
            f"the PR changes files that hold tests ({_shown(held)}): tests changed with the "
            "code cannot show that it broke nothing"
        )
    read = [p for p in others if PurePosixPath(p).suffix.lower() not in DOC_SUFFIXES]
    if read:
        found.append(
            f"the PR changes {len(read)} file(s) that are neither test nor code ({_shown(read)}), "
            "which the tests may read (data, configuration) in the PR's version on both sides: "
            f"only documentation ({', '.join(DOC_SUFFIXES)}) leaves nothing to prove"
        )
    return found


def reason(before: VerdictFile, head: VerdictFile) -> str:
    """The one reason of a NOTHING TO PROVE comparison."""
    was, now = statuses(before), statuses(head)
    both = sum(1 for i, s in now.items() if s is TestStatus.PASSED and was.get(i) is s)
    return REASON.format(passed=both)
