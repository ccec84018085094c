"""Test files whose code runs around every test of their package: ``TestMain`` (it decides
which tests run and the exit status) and ``init()`` (it runs before any test, and can patch
the package under test). Read from the files' text, never executed: a false find only adds a
reason to the verdict."""

from __future__ import annotations

import os
import re
from pathlib import Path

MAX_FILES = 20_000
MAX_READ = 4 * 1024 * 1024
_FUNCS = {
    "TestMain": re.compile(rb"^func\s+TestMain\s*\(", re.MULTILINE),
    "init": re.compile(rb"^func\s+init\s*\(\s*\)", re.MULTILINE),
}
_WHY = {
    "TestMain": "TestMain decides which tests run and the exit status",
    "init": "init() in a test file runs before every test",
}


def go_test_files(tree: Path) -> list[str]:
    """``*_test.go`` files the go command can build: not under testdata/, vendor/, or a
    directory starting with "." or "_" (``./...`` skips those)."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(tree, followlinks=False):
        dirnames[:] = sorted(
            d for d in dirnames if d not in ("testdata", "vendor") and d[:1] not in "._"
        )
        for name in sorted(filenames):
            if name.endswith("_test.go") and name[:1] not in "._":
                found.append((Path(dirpath) / name).relative_to(tree).as_posix())
                if len(found) >= MAX_FILES:
                    return found
    return found


def signals(tree: Path) -> list[str]:
    out: list[str] = []
    for rel in go_test_files(tree):
        path = tree / rel
        if path.is_symlink() or not path.is_file():
            continue
        with path.open("rb") as fh:
            text = fh.read(MAX_READ)
        for func, pattern in _FUNCS.items():
            if pattern.search(text):
                out.append(f"{rel} defines {func}: {_WHY[func]}")
    return out
