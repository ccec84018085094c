"""The split stage's hand-off: the PR's changed paths, as the compare judged them.

Split first by base's rule (``testpaths``: code, or everything else, the PR's version on both
sides), then moved further to the test side by what the runs placed (``placed``): what the
decision reads of them, and what the result file lists.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChangedPaths:
    """Every path the PR changes, by what it is to the compare."""

    changed: tuple[str, ...] | None = None  # every path the PR changes (None: not known)
    rule: str | None = None  # base's test rule, described (the result's ``test_rule``)
    tests: tuple[str, ...] = ()  # not code: the PR's version on both sides
    code: tuple[str, ...] = ()  # known to be code: the only difference between the sides
    others: tuple[str, ...] = ()  # neither test nor code (data, docs, config)
    # the test paths of base the PR edits or deletes, and conftest or data files beside tests
    # (base's own run ran for them, or for ``others``)
    edited: tuple[str, ...] = ()
    late_tests: tuple[str, ...] = ()  # code by base's rule, tests by the runs: moved over
    # code files the PR changes in which a run placed tests (doctests, in-source tests): the
    # tests there changed with the code, so none of them can prove the fix
    mixed: tuple[str, ...] = ()
    tested: tuple[str, ...] = ()  # paths of base the PR changes that a run placed tests in
