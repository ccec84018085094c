"""Code that lives in a test file: an in-package test file (``package calc`` in a
``*_test.go``) is compiled into the same package as the code, so it can declare what the code
calls (``addImpl``) or what base's code declares (``Add``, redeclared: the package does not
build on base's code, so every test "fails" there). Either way the fix is in a file that runs
on both sides as the PR's version, and the package only builds with its tests: such a test
file judges the PR (harness).

Read from the files' text, never executed: each in-package test file's top-level names (func,
method, var, const and type declarations, grouped ones too; not the tests, ``TestMain`` or
``init``), against every identifier of the same folder's code files in either tree, their
comments and string literals left out. A false find only adds a harness file.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from verify_pr.runners.go.harness_code import MAX_READ, go_test_files
from verify_pr.sandbox import tree_files

_PACKAGE = re.compile(rb"^package\s+(\w+)", re.MULTILINE)
_FUNC = re.compile(rb"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)", re.MULTILINE)
_SINGLE = re.compile(rb"^(?:var|const|type)\s+([A-Za-z_]\w*)", re.MULTILINE)
_GROUP = re.compile(rb"^(?:var|const|type)\s*\((.*?)^\)", re.MULTILINE | re.DOTALL)
_GROUP_NAME = re.compile(rb"^\s*([A-Za-z_]\w*)", re.MULTILINE)
_RUN_BY_GO = re.compile(rb"^(?:Test|Benchmark|Example|Fuzz)(?:[^a-z]|$)")
# comments, then string and rune literals: what is not an identifier the code uses
_NOT_CODE = re.compile(
    rb"//[^\n]*|/\*.*?\*/|`[^`]*`|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL
)
_WORD = re.compile(rb"[A-Za-z_]\w*")
MAX_CODE_FILES = 5_000


def declared(text: bytes) -> set[bytes]:
    """The top-level names a Go file declares, but the ones go test runs itself."""
    names = set(_FUNC.findall(text)) | set(_SINGLE.findall(text))
    for group in _GROUP.findall(text):
        names |= set(_GROUP_NAME.findall(group))
    return {n for n in names if n not in (b"init", b"_") and not _RUN_BY_GO.match(n)}


def used(text: bytes) -> set[bytes]:
    """Every identifier of a Go file's code (comments and literals left out)."""
    return set(_WORD.findall(_NOT_CODE.sub(b" ", text)))


def _read(tree: Path, rel: str) -> bytes | None:
    if not tree_files.is_plain_file(tree, rel):
        return None
    with (tree / rel).open("rb") as fh:
        return fh.read(MAX_READ)


def _real_dir(tree: Path, folder: str) -> bool:
    """A folder reached through real folders only (no link followed)."""
    current = tree
    for part in PurePosixPath(folder).parts:
        current = current / part
        try:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                return False
        except OSError:
            return False
    return True


def _code_files(tree: Path, folder: str) -> list[str]:
    base = tree / folder if folder else tree
    if not _real_dir(tree, folder):
        return []
    try:
        names = sorted(p.name for p in base.iterdir())
    except OSError:
        return []
    rel = [f"{folder}/{n}" if folder else n for n in names]
    return [r for r in rel if r.endswith(".go") and not r.endswith("_test.go")][:MAX_CODE_FILES]


def test_files_with_code(trees: Sequence[Path]) -> dict[str, str]:
    """In-package test files of any of ``trees`` that declare a name the same folder's code
    (in any of ``trees``) uses: path -> why."""
    found: dict[str, str] = {}
    for tree in trees:
        for rel in go_test_files(tree):
            text = _read(tree, rel)
            package = _PACKAGE.search(text or b"")
            if text is None or package is None or package.group(1).endswith(b"_test"):
                continue  # package x_test: it sees only what the package exports
            names = declared(text)
            if not names or rel in found:
                continue
            hit = _first_use(trees, str(PurePosixPath(rel).parent).removeprefix("."), names)
            if hit is not None:
                found[rel] = (
                    f"an in-package test file that declares {hit[0]}, which the code file "
                    f"{hit[1]} names: code that builds only with the tests"
                )
    return found


def _first_use(trees: Iterable[Path], folder: str, names: set[bytes]) -> tuple[str, str] | None:
    for tree in trees:
        for code in _code_files(tree, folder):
            text = _read(tree, code)
            common = names & used(text or b"")
            if common:
                return min(common).decode("ascii", "replace"), code
    return None
