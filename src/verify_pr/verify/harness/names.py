"""Harness files: the files that decide how the tests run or how their results are reported.

A PR that changes one can make its own tests pass without fixing anything, so the comparison
names them (``decision.decide``) and ``--strict-harness`` runs head's tests with base's versions.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from pathlib import PurePosixPath

from verify_pr.runners.detect import all_runners

# Files that decide how the tests run or how their results are reported (matched on the
# file name at any depth, or on the first path component for module shadows): every runner's
# own (``Runner.harness_names``: whatever the detected runner, a tree may hold another's), and
# what any Python or JavaScript run reads.
_SHARED_NAMES = (
    "sitecustomize.py",
    "usercustomize.py",
    "*.pth",
    "package.json",
    "setupTests.*",
    "test-setup.*",
    # read by jest's babel-jest transform (and vitest's plugins) from any folder of the tree
    ".babelrc",
    ".babelrc.*",
    "babel.config.*",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "bun.lock",
    "bun.lockb",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "Pipfile.lock",
)
HARNESS_NAMES = tuple(
    dict.fromkeys([*(n for r in all_runners() for n in r.harness_names), *_SHARED_NAMES])
)
# A top-level module of these names shadows an installed runner (``Runner.shadowed_modules``).
HARNESS_TOP_LEVEL = tuple(dict.fromkeys(m for r in all_runners() for m in r.shadowed_modules))
HARNESS_DIRS = ("node_modules", ".yarn", ".pnp.cjs", ".pnp.js")
# Installed-distribution metadata: once the working directory is on sys.path, pytest loads
# the ``pytest11`` entry points it finds in such a folder of the tree, as plugins. Only that
# file decides what loads (PKG-INFO, which every release of an sdist changes, does not).
HARNESS_DIR_GLOBS = ("*.dist-info", "*.egg-info")
ENTRY_POINTS = "entry_points.txt"


def is_harness_path(path: str) -> bool:
    parts = PurePosixPath(path).parts
    if not parts:
        return False
    if parts[0] in HARNESS_TOP_LEVEL or any(part in HARNESS_DIRS for part in parts):
        return True
    if (
        parts[-1] == ENTRY_POINTS
        and len(parts) > 1
        and any(fnmatch.fnmatchcase(parts[-2], g) for g in HARNESS_DIR_GLOBS)
    ):
        return True
    return any(fnmatch.fnmatchcase(parts[-1], pattern) for pattern in HARNESS_NAMES)


def harness_files(changed: Iterable[str]) -> list[str]:
    return sorted({path for path in changed if is_harness_path(path)})
