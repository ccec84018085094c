"""Test-only view of ``runners.config_code``: every path in a tree that runs the tree's code."""

from __future__ import annotations

from pathlib import Path

from verify_pr.runners import _files
from verify_pr.runners.config_code import (
    JEST_JS_CONFIGS,
    JEST_JSON_CONFIG,
    _vitest_configs,
    findings,
)


def code_running_config(tree: Path) -> list[str]:
    """Repo-relative paths of every file or directory in ``tree`` that makes a runner execute
    the tree's code (the findings' paths, the runners' config files, conftest.py)."""
    paths = {f.path for f in findings(tree) if f.path != "."}
    conftests, _ = _files.find_named(tree, "conftest.py")
    for name in (*JEST_JS_CONFIGS, JEST_JSON_CONFIG, *_vitest_configs()):
        if _files.entry(tree, name) is not _files.Entry.ABSENT:
            paths.add(name)
    return sorted(paths | set(conftests))
