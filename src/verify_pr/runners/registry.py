"""Every runner by name: what ``verify/`` asks instead of comparing names.

A plan's runner is a runner's name or ``custom`` (the caller's own command, which no runner
stands behind: ``runner_named`` gives None and each caller takes its cautious path)."""

from __future__ import annotations

from verify_pr.reports._common import DEFAULT_TREE_ROOT
from verify_pr.runners.base import Runner
from verify_pr.runners.detect import all_runners


def runner_named(name: str, tree_root: str = DEFAULT_TREE_ROOT) -> Runner | None:
    """The runner called ``name``; None for ``custom`` or any name no runner has."""
    for runner in all_runners(tree_root):
        if runner.name.value == name:
            return runner
    return None
