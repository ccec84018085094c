"""Test support by its folder: the first guess, which can only add caution.

A helper that tests use to compute the expected value is test support, wherever it lives: as
code, "before" gets base's strict helper and head the PR's weakened one, and a bug nobody fixed
is proven fixed. The runner's own names (``test``, ``tests``, ``__tests__``...) miss the other
spellings and cases of the same folders, so a folder is also test support when its name,
compared case-insensitively with ``_`` and ``-`` ignored, is one of them (``Tests``, ``TESTS``,
``test_utils``, ``testutils``, ``test-utils``, ``spec``, ``__helpers__``, ``__mocks__``,
``fixtures``, ``integration_tests``). Moving a file to the test side runs the PR's version of it
on both sides, where it can never make a proof: the guess can cost an honest fix of a file so
placed its proof (NOT PROVEN), never make one.

A ``testing`` subpackage of a package (``mypkg/testing/``) is test support too, unless a module
of the product outside it imports it (``product_imports``: numpy's own modules import
``numpy.testing``; a helper package only tests import is support).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from verify_pr.sandbox import tree_files

# the names' cores (lowercased, ``_`` and ``-`` dropped, dunders stripped)
_CORES = frozenset(
    {
        "test",
        "tests",
        "testing",
        "spec",
        "specs",
        "fixture",
        "fixtures",
        "mocks",
        "snapshots",
    }
)
# after ``test``: test_utils, testutils, test-helpers, testsupport, test_lib, test_data...
_TEST_SUFFIXES = frozenset(
    {"util", "utils", "helper", "helpers", "support", "lib", "libs", "data", "common", "tools"}
)
# only wrapped in dunders (``__helpers__``): a bare ``helpers`` folder is as often product code
_DUNDER_CORES = frozenset({"helpers", "utils", "support", "mock", "test"})
_IMPORTS_TESTING = re.compile(
    rb"(?m)^[ \t]*(?:from[ \t]+[\w.]*[ \t]+import[ \t]+[^#\n]*\btesting\b"
    rb"|from[ \t]+[\w.]*\btesting\b[\w.]*[ \t]+import|import[ \t]+[\w.]*\btesting\b)"
)
MAX_SCANNED = 2_000  # product modules read per package
MAX_BYTES = 1 << 20


def is_support_dir(name: str) -> bool:
    """Whether a folder of this name holds tests or their support, by the first guess."""
    lower = name.lower()
    core = lower.strip("_").replace("-", "").replace("_", "")
    if core in _CORES:
        return True
    if lower.startswith("__") and lower.endswith("__") and core in _DUNDER_CORES:
        return True
    if core.startswith("test") and core[4:] in _TEST_SUFFIXES:
        return True
    separated = lower.strip("_").replace("-", "_")
    return separated.endswith(("_tests", "_test", "_specs", "_spec")) and "_" in separated


def support_dirs(paths: Iterable[str]) -> set[str]:
    """Every folder on the way to ``paths`` the guess calls test support."""
    found: set[str] = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        for depth, part in enumerate(parts[:-1]):
            if is_support_dir(part):
                found.add("/".join(parts[: depth + 1]))
    return found


def product_imports(tree: Path, folder: str) -> bool:
    """Whether a Python module of the package above ``folder`` (a ``testing`` subpackage),
    outside it and outside any test-support folder, imports a ``testing`` module: the product
    itself loads it (read statically, bounded; a cap reached answers yes, the old rule)."""
    package = str(PurePosixPath(folder).parent)
    try:
        walked = tree_files.walk(tree / package, 100_000, lambda e: not is_support_dir(e.name))
        scanned = 0
        for entries in walked:
            for entry in entries.entries:
                if not entry.is_file or not entry.rel.endswith(".py"):
                    continue
                scanned += 1
                read = tree_files.read_capped(entry.path, MAX_BYTES)
                if scanned > MAX_SCANNED or (read is not None and read[1]):
                    return True
                if read is not None and _IMPORTS_TESTING.search(read[0]):
                    return True
    except (tree_files.TooManyEntries, OSError):
        return True
    return False
