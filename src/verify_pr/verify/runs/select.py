"""Run tests by id, apart from the rest of the suite: the runner's own command with the
runner's selection appended (one test, or the FAIL_TO_PASS tests together).

Each runner says how it selects (``Runner.select``, ``select_batch``, ``select_repeated``:
argv words, or None where it cannot; ``runners/pytest/select.py``, ``runners/node/select.py``);
they stay argv in the plan (``SuitePlan.argv``) and are quoted for the shell once, where the
plan becomes the sandbox's command, since selections are built from a report's testcase
(untrusted text). A test that cannot be selected gives None: the caller says
so. An own command (``custom``) has no runner behind it: nothing is selected.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from verify_pr.models.report import TestCase
from verify_pr.runners.base import Argv, IsModule, Runner
from verify_pr.runners.pytest.select import pytest_node_id
from verify_pr.sandbox.tree_files import is_plain_file

__all__ = [
    "IsModule",
    "batch_selector",
    "modules_in",
    "pytest_node_id",
    "repeated_selector",
    "selector",
]


def modules_in(*trees: Path) -> IsModule:
    """``IsModule`` for a path that is a regular file, reached through real folders only (no
    link followed), in every one of ``trees``."""

    def is_module(rel: str) -> bool:
        path = PurePosixPath(rel)
        if "\0" in rel or path.is_absolute() or not path.parts or ".." in path.parts:
            return False
        return all(is_plain_file(tree, rel) for tree in trees)

    return is_module


def selector(
    runner: Runner | None, case: TestCase, is_module: IsModule | None = None
) -> Argv | None:
    """The words to add to ``runner``'s command so that only ``case`` runs (``is_module``: see
    ``pytest_node_id``); None for an own command (``runner`` None) or a case it cannot reach."""
    return None if runner is None else runner.select(case, is_module)


def batch_selector(
    runner: Runner | None, cases: list[TestCase], is_module: IsModule | None = None
) -> Argv | None:
    """The words that run exactly ``cases`` (and, for the JS runners, any test of the same
    files that shares one of their names): one runner process for the whole proof."""
    return None if runner is None else runner.select_batch(cases, is_module)


def repeated_selector(runner: Runner | None, cases: list[TestCase], times: int) -> Argv | None:
    """The words that run exactly ``cases`` ``times`` times over in one runner process, one
    repetition after the other, or None where the runner cannot (then a process per
    repetition)."""
    return None if runner is None else runner.select_repeated(cases, times)
