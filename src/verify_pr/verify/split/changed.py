"""The split stage: the PR's changed paths, as the compare judged them.

Split first by base's rule (``testpaths``: code, or everything else, the PR's version on both
sides: ``split_change``), then moved further to the test side by what the runs placed
(``placed``: ``Split.moving``). ``Split`` is what the stages after it read as they run;
``ChangedPaths`` (``Split.judged``) is the hand-off to the decision: what it reads of the
paths, and what the result file lists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from verify_pr.runners.base import Runner
from verify_pr.sandbox import tree_files
from verify_pr.verify.split.testpaths import TestPathRule, rule_for, split


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


@dataclass(frozen=True)
class Split:
    """The PR's paths as the runs take them: by base's rule, then as the runs placed tests."""

    rule: TestPathRule  # base's runner's
    changed: tuple[str, ...]  # every path the PR changes
    shared: tuple[str, ...]  # not code: the PR's version on both sides
    tests: tuple[str, ...]  # of ``shared``, the test paths by the rule
    code: tuple[str, ...]  # known to be code: base's version on before
    others: tuple[str, ...]  # of ``shared``, neither test nor code
    # test paths of base the PR edits or deletes (or a conftest or data file beside them):
    # base's own run shows how the tests stood before the PR touched them
    edited: tuple[str, ...]
    moved: tuple[str, ...] = ()  # code by base's rule, moved to the test side by the runs
    mixed: tuple[str, ...] = ()  # code and test at once (``placed``)
    tested: tuple[str, ...] = ()  # paths of base the PR changes that the runs placed tests in

    def moving(self, moved: Sequence[str], base_tree: Path) -> Split:
        """``moved`` (code by the rule, where the runs placed tests) on the test side: the
        PR's version on both sides, and a test path of base it edits when base has it."""
        return replace(
            self,
            code=tuple(p for p in self.code if p not in moved),
            shared=tuple(sorted({*self.shared, *moved})),
            tests=tuple(sorted({*self.tests, *moved})),
            # ``others`` stays: a moved path joins both shared and tests
            edited=(*self.edited, *(p for p in moved if tree_files.exists(base_tree, p))),
            moved=tuple(moved),
        )

    def judged(self) -> ChangedPaths:
        return ChangedPaths(
            changed=self.changed,
            rule=self.rule.describe(),
            tests=self.shared,
            code=self.code,
            others=self.others,
            edited=tuple(sorted(set(self.edited))),
            late_tests=self.moved,
            mixed=self.mixed,
            tested=self.tested,
        )


def split_change(base_tree: Path, changed: Sequence[str], runner: Runner | None) -> Split:
    """The PR's ``changed`` paths split by the rule of base's ``runner`` (None: an own
    command), read from ``base_tree``."""
    rule = rule_for(base_tree, runner, changed)
    # shared: the PR's version on both sides (tests, and whatever is not known to be code)
    shared, code = split(changed, rule)
    tests = [p for p in shared if rule.is_test(p)]
    # base's own run is needed when the PR edits or deletes a test path (or adds a conftest
    # or data file beside them), or changes a file neither test nor code (the PR's on both
    # sides: a test it breaks fails on both)
    edited = [p for p in tests if tree_files.exists(base_tree, p) or not _is_module(rule, p)]
    others = [p for p in shared if p not in tests]
    return Split(
        rule, tuple(changed), tuple(shared), tuple(tests), tuple(code), tuple(others), tuple(edited)
    )


def _is_module(rule: TestPathRule, path: str) -> bool:
    """A test module by name (not a conftest, a snapshot, or a data file in a test folder)."""
    name = PurePosixPath(path).name
    return name != "conftest.py" and not name.endswith(".snap") and rule.is_test(name)
