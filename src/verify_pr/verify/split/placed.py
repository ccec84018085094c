"""Where the runs placed tests: a file in which any run's report puts a test is a test path.

Base's name rule (``testpaths``) is the first guess. The reports can only add to the test side,
never take a path off it, so a report forged from inside the PR's process cannot move a test
to the code side. A code path of the PR in which a run placed a test is then either
- moved to the test side (the PR's version on both sides, and the before run is run again):
  a file new in the PR (it has no code of base's to compare), or any file for jest, which
  runs tests only from the files its testMatch or testRegex selects; or
- kept as code and marked *mixed*: a file of base that is code and test at once (a module
  with doctests, vitest's in-source tests). Its tests changed together with the code, so none
  of them can prove the fix (``pairing.pair``).
Symlinks are resolved inside each tree (a test module that is a link to a code file places
its tests in that code file too). Reads are lstat and readlink on our own fresh exports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from verify_pr.runners.base import Runner
from verify_pr.sandbox import tree_files
from verify_pr.verify.runs.suite import SuiteOutcome


@dataclass(frozen=True)
class LateTests:
    """Code paths of the PR in which the runs placed tests."""

    moved: tuple[str, ...] = ()  # to the test side
    mixed: tuple[str, ...] = ()  # code and test at once: their tests prove nothing


def placed_files(outcomes: Iterable[SuiteOutcome | None], trees: Sequence[Path]) -> set[str]:
    """Every file any run's whole report places a test in, with the files it links to."""
    files = {
        case.file
        for outcome in outcomes
        if outcome is not None and outcome.report is not None
        for case in outcome.report.testcases
        if case.file
    }
    for tree in trees:
        files |= {landed for path in list(files) if (landed := resolve(tree, path))}
    return files


def late_tests(
    code: Sequence[str], placed: set[str], base_tree: Path, runner: Runner | None
) -> LateTests:
    """A code path a report places tests in moves to the test side when it is new in the PR,
    or whatever it is under a runner that runs tests only from test files (jest); base's code
    with tests (doctests, vitest in-source tests) stays code whose tests prove nothing."""
    only_tests = runner is not None and runner.tests_only_in_test_files
    moved, mixed = [], []
    for path in code:
        if path not in placed:
            continue
        if only_tests or not tree_files.exists(base_tree, path):
            moved.append(path)
        else:
            mixed.append(path)
    return LateTests(tuple(moved), tuple(mixed))


def resolve(tree: Path, path: str) -> str | None:
    """Where ``path`` lands in ``tree`` after its links (None when it leaves the tree, loops,
    or is not a link anywhere on the way)."""
    found = tree_files.resolve(path, tree_files.link_in(tree))
    if found is None:
        return None
    landed, hops = found
    return landed if hops and landed != path else None


def linked_to(placed: set[str], trees: Sequence[Path], targets: Iterable[str]) -> set[str]:
    """The placed files that are links landing on one of ``targets`` in a tree: a test module
    that is a link to a file that is code and test at once is that file (its tests prove
    nothing either)."""
    wanted = set(targets)
    return {p for p in placed for tree in trees if resolve(tree, p) in wanted}
