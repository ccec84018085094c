"""NOTHING TO PROVE: a PR that fixes nothing and, as far as the suite can tell, breaks nothing.

``decision.decide`` asks this only when a comparison is clean but for one reason: no test fails
on base's code and passes on head. Then the PR may still be a docs change or a pure refactor,
which deserves a verdict of its own (exit 0, a ``success`` check) rather than NOT PROVEN. It is
given only when "broke nothing" can be said honestly, so each rule here closes a way to hide a
break behind a suite that passes on both sides:

- the suite passes on both sides: base's code with the PR's tests, and the PR's code (a test
  failing on both sides can hide a new failure behind the old one);
- every test that passed on base's code passes on head (a regression, a removed, skipped or
  expected-to-fail test is already a reason of ``decide``; this says it once more, whole);
- the PR changes no test path of base: base's own run was not needed (``side_runs`` runs it
  exactly when the PR edits or deletes a test path of base, or adds a conftest or data file
  beside the tests). A test weakened together with the code it tests passes on both sides;
- the PR changes no harness file, even with strict harness (head's tests then ran with base's
  harness: what the PR changed there was never run);
- no file of base the PR changes holds tests (a doctest rewritten with its code, a doctest
  text file), and no path base's rule called code turned out to hold tests;
- every changed file that is neither test nor code is documentation (by suffix: a data or
  configuration file the tests read runs in the PR's version on both sides, so a weakened
  tolerance or list of cases would pass on both).

The rules themselves are the policy's (``policy.nothing.gaps``): the publish job asks the same
of the artifact. New test modules are allowed: their tests ran on both sides. The PR's code
still runs inside its own test process, as for VERIFIED: a PR that forges its own results is
not caught.
"""

from __future__ import annotations

from collections.abc import Mapping

from verify_pr.models.report import TestStatus
from verify_pr.models.verdict import VerdictFile
from verify_pr.policy.nothing import DOC_SUFFIXES, gaps
from verify_pr.verify.runs.testcases import statuses

__all__ = ["DOC_SUFFIXES", "REASON", "gaps", "reason"]
REASON = (
    "no test goes from failing to passing, and nothing that passed broke: {passed} test(s) "
    "pass on base's code and on head, none regressed, none was removed, skipped or marked "
    "expected to fail; the PR changes no test or harness file of base, and every run completed "
    "with a clean report. It proves no fix"
)


def reason(
    before: VerdictFile,
    head: VerdictFile,
    runs: tuple[Mapping[str, TestStatus], Mapping[str, TestStatus]] | None = None,
) -> str:
    """The one reason of a NOTHING TO PROVE comparison; ``runs``: before's and head's every
    result (``Pairing.runs``) when their verdict files list only some."""
    was, now = runs or (statuses(before), statuses(head))
    both = sum(1 for i, s in now.items() if s is TestStatus.PASSED and was.get(i) is s)
    return REASON.format(passed=both)
