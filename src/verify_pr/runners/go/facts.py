"""What the go toolchain says a tree's tests are: ``go list -e -json ./...`` run in the sandbox.

Its output is one JSON object per package, back to back. ``TestGoFiles`` (in-package tests)
and ``XTestGoFiles`` (``package x_test``) are the test files, relative to the package's
``Dir``; nothing else is. Files under ``testdata/`` are data: the go command never builds them
(it lists no package there), so they are neither tests nor code.

The harness, what can change how every test runs or what it reports: the module files
(``go.mod``, ``go.sum``, ``go.work``, ``go.work.sum``, ``vendor/modules.txt``), a test file
that defines ``TestMain``, and a test file that declares no test (a helper shared by the
tests: its change is not a test's change). Declarations are read from the file's text,
so a guess can only add a file to the harness (more caution), never take one out.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from verify_pr.errors import ReportError
from verify_pr.reports._common import DEFAULT_TREE_ROOT, repo_relative
from verify_pr.runners.go.toolchain import go_argv, go_shell

# only the fields read here: go list then skips its staleness checks
LIST_ARGV: tuple[str, ...] = tuple(
    go_argv("list", "-e", "-json=Dir,ImportPath,TestGoFiles,XTestGoFiles,Error", "./...")
)
MODULE_FILES = frozenset({"go.mod", "go.sum", "go.work", "go.work.sum"})
VENDOR_LIST = "modules.txt"
MAX_LIST_BYTES = 64 * 1024 * 1024
MAX_PACKAGES = 100_000
# A top-level test, fuzz target, benchmark or example: what `go test` runs from a file.
_DECLARES_TEST = re.compile(
    rb"^func\s+(?:Test|Fuzz|Benchmark|Example)(?:[^a-z\w]|[A-Z0-9_]|$)", re.MULTILINE
)
_TEST_MAIN = re.compile(rb"^func\s+TestMain\s*\(", re.MULTILINE)
_NAMES = ("TestGoFiles", "XTestGoFiles")


@dataclass(frozen=True)
class GoPackage:
    import_path: str
    dir: str | None  # relative to the tree; None when outside it (the module cache)
    test_files: tuple[str, ...]  # relative to the tree
    error: str | None  # go list's own error for the package (it still lists it, -e)


def list_command(report_path: str) -> str:
    """The shell command that writes ``go list``'s output to ``report_path``."""
    return go_shell(list(LIST_ARGV), report_path)


def parse_go_list(data: bytes, tree_root: str = DEFAULT_TREE_ROOT) -> tuple[GoPackage, ...]:
    """The packages ``go list -e -json`` printed; ReportError on anything else."""
    what = "go list -json output"
    if len(data) > MAX_LIST_BYTES:
        raise ReportError(f"{what}: over {MAX_LIST_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ReportError(f"{what}: not UTF-8") from None
    decoder = json.JSONDecoder()
    packages: list[GoPackage] = []
    at = _skip_ws(text, 0)
    while at < len(text):
        try:
            value, at = decoder.raw_decode(text, at)
        except ValueError as exc:
            raise ReportError(f"{what}: not a JSON object at {at}: {exc}"[:300]) from None
        if len(packages) >= MAX_PACKAGES:
            raise ReportError(f"{what}: more than {MAX_PACKAGES} packages")
        packages.append(_package(value, what, tree_root))
        at = _skip_ws(text, at)
    return tuple(packages)


def _skip_ws(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _package(value: Any, what: str, tree_root: str) -> GoPackage:  # noqa: ANN401
    if not isinstance(value, dict):
        raise ReportError(f"{what}: a package is not a JSON object")
    path, directory = value.get("ImportPath"), value.get("Dir")
    if not isinstance(path, str) or not path or not isinstance(directory, str):
        raise ReportError(f"{what}: a package without ImportPath or Dir")
    rel = repo_relative(directory, tree_root)
    if directory == tree_root or posixpath.normpath(directory) == posixpath.normpath(tree_root):
        rel = ""
    files: list[str] = []
    for key in _NAMES:
        names = value.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ReportError(f"{what}: {key} of {path[:80]!r} is not a list of names")
        if rel is None:
            continue
        for name in names:
            if "/" in name or not name.endswith("_test.go"):
                raise ReportError(f"{what}: {key} of {path[:80]!r} names {name[:80]!r}")
            files.append(posixpath.join(rel, name) if rel else name)
    error = value.get("Error")
    message = error.get("Err") if isinstance(error, dict) else None
    return GoPackage(path, rel, tuple(files), message if isinstance(message, str) else None)


def listed_test_files(packages: tuple[GoPackage, ...]) -> frozenset[str]:
    """Every test file the toolchain listed, relative to the tree."""
    return frozenset(f for p in packages for f in p.test_files)


def is_data(path: str) -> bool:
    """Under a ``testdata`` directory: files the go command never builds."""
    return "testdata" in PurePosixPath(path).parts[:-1]


def is_module_file(path: str) -> bool:
    p = PurePosixPath(path)
    if p.name in MODULE_FILES:
        return True
    return p.name == VENDOR_LIST and p.parent.name == "vendor"


def harness_paths(tree: Path, packages: tuple[GoPackage, ...]) -> frozenset[str]:
    """The tree's harness files (module docstring): module files, and the listed test files
    that define TestMain or declare no test."""
    found: set[str] = set()
    for path in _walk_module_files(tree):
        found.add(path)
    for path in listed_test_files(packages):
        file = tree / path
        if file.is_symlink() or not file.is_file():
            found.add(path)  # not a plain file: cannot be read as a test, so caution
            continue
        text = file.read_bytes()[: 4 * 1024 * 1024]
        if _TEST_MAIN.search(text) or not _DECLARES_TEST.search(text):
            found.add(path)
    return frozenset(found)


def static_harness(tree: Path) -> dict[str, str]:
    """The harness of ``tree`` (path -> why) from its files alone, as compare reads it before
    any run: the test files are every ``*_test.go`` the go command can build (a superset of
    what go list names: a file a build constraint leaves out is read too, which can only add
    harness), so nothing the toolchain runs is left out."""
    from verify_pr.runners.go.harness_code import go_test_files

    files = tuple(go_test_files(tree))
    found = harness_paths(tree, (GoPackage("", "", files, None),))
    return {path: _why(path) for path in sorted(found)}


def _why(path: str) -> str:
    if is_module_file(path):
        return "a module file: how every package builds"
    return "a test file that defines TestMain or declares no test: it runs around the tests"


def _walk_module_files(tree: Path) -> list[str]:
    out: list[str] = []
    for file in sorted(tree.rglob("*")):
        rel = file.relative_to(tree).as_posix()
        if ".git" in PurePosixPath(rel).parts or file.is_dir():
            continue
        if is_module_file(rel):
            out.append(rel)
    return out
