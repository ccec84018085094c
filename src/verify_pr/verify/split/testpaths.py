"""Which paths are tests, which are code: the rule is read from BASE's configuration.

A path is a test path when the runner of base would treat it as part of the tests: a test
module, a conftest, a snapshot, or any file under a test folder (its data and fixture files:
a golden file rewritten by the PR is a test change, not a code change). A path is code only
when it is known to be code: not a test path and a source file of the runner's language
(``SOURCE_SUFFIXES``). Everything else (data, docs, config, a doctest text file) is neither,
and a comparison runs the PR's version of it on both sides, where it can never make a proof.
The runs can move a path further to the test side (``pairing.side_runs``), never back. The rule
only reads files (never executes config) and is recorded in the result file.

pytest: base's ``python_files`` (default ``test_*.py *_test.py``), ``conftest.py``, every file
under base's ``testpaths`` entries, and every file under a folder named test or tests, or
testing unless that folder is a subpackage of a package that the product's own modules import
(``numpy/testing/``: product code), in any case, and under a folder the first guess of
``test_support`` calls test support (``test_utils``, ``spec``, ``__helpers__``...).
A ``testpaths`` entry that is base's own distribution package (``testpaths = toolz`` in the
project named toolz: tests inside the package) is where pytest looks, not a folder of tests:
inside it the names decide, so its modules are code and its data neither (the PR's version on
both sides, base's own run then needed), else nothing in the package could ever prove a fix.
Only the package base's metadata names (pyproject's ``[project] name``, setup.cfg's
``[metadata] name``, else setup.py's ``setup(name="...")`` when it is one string literal, or
its own package's literal attribute (``name=sortedcontainers.__title__``: ``setup_name``), read
with ``ast``, never run: WebOb's ``testpaths = src/webob tests``): any other folder in
testpaths, a package of test helpers too, stays tests.
jest, vitest, bun: ``*.test.*``, ``*.spec.*``, ``*_test.*``, ``*_spec.*``, ``*.snap``, and every
file under ``__tests__``, ``__snapshots__``, ``__mocks__``, ``__fixtures__``, ``fixtures``,
test or tests folders. (A ``testMatch`` or ``include`` in a JavaScript config is code, not
data, and is not read: the defaults above are the rule.)
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from verify_pr.contract import CUSTOM_RUNNER
from verify_pr.runners.base import Runner, TestFiles
from verify_pr.runners.pytest.ini import ini_sources
from verify_pr.sandbox import tree_files
from verify_pr.verify.split import setup_name
from verify_pr.verify.split.test_support import is_support_dir, product_imports

PYTEST_DEFAULT_FILES: tuple[str, ...] = ("test_*.py", "*_test.py")
PYTHON_ALWAYS: tuple[str, ...] = ("conftest.py",)
PYTHON_DIRS: tuple[str, ...] = ("test", "tests", "testing")
# A folder of this name inside a package is the product's own testing helpers, shipped code.
PACKAGE_TESTING_DIR = "testing"
PYTHON_SOURCES: tuple[str, ...] = (".py", ".pyi", ".pyx", ".pxd")
JS_SOURCES: tuple[str, ...] = (
    ".js",
    ".cjs",
    ".mjs",
    ".jsx",
    ".ts",
    ".cts",
    ".mts",
    ".tsx",
    ".vue",
    ".svelte",
)
# go: what go list names TestGoFiles and XTestGoFiles, and testdata/ (data, ignored by the go
# command); a first guess that the runs' facts (runners.go.facts) can only make more cautious
GO_FILES: tuple[str, ...] = ("*_test.go",)
GO_DIRS: tuple[str, ...] = ("testdata",)
GO_SOURCES: tuple[str, ...] = (".go",)
JS_FILES: tuple[str, ...] = ("*.test.*", "*.spec.*", "*_test.*", "*_spec.*", "*.snap")
JS_DIRS: tuple[str, ...] = (
    "__tests__",
    "__snapshots__",
    "__mocks__",
    "__fixtures__",
    "fixtures",
    "test",
    "tests",
)
_MAX_PATTERNS = 50
_PROJECT_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?")


@dataclass(frozen=True)
class TestPathRule:
    """File-name globs, folder names at any depth, and folder prefixes."""

    __test__ = False

    runner: str
    file_globs: tuple[str, ...]
    dir_names: tuple[str, ...]
    roots: tuple[str, ...] = ()
    source: str = "defaults"
    sources: tuple[str, ...] = PYTHON_SOURCES + JS_SOURCES  # suffixes of the language's code
    # folders named ``testing`` that are subpackages of a package in base: code, not tests
    package_dirs: frozenset[str] = frozenset()
    # testpaths entries that are packages of base: not roots (see the module's docstring)
    package_roots: tuple[str, ...] = ()

    def is_test(self, path: str) -> bool:
        parts = PurePosixPath(path).parts
        if not parts:
            return False
        if any(fnmatch.fnmatchcase(parts[-1], glob) for glob in self.file_globs):
            return True
        for depth, part in enumerate(parts[:-1]):
            named = part in self.dir_names or is_support_dir(part)
            if named and "/".join(parts[: depth + 1]) not in self.package_dirs:
                return True
        return any(path == root or path.startswith(root + "/") for root in self.roots)

    def is_code(self, path: str) -> bool:
        """Known to be code: not a test path, and a source file of the runner's language."""
        return not self.is_test(path) and PurePosixPath(path).suffix in self.sources

    def describe(self) -> str:
        text = f"{self.runner} rule from base's {self.source}: files {', '.join(self.file_globs)}"
        if self.dir_names:
            text += (
                f"; anything under folders named {', '.join(self.dir_names)} (any case) or "
                "like test support (test_utils, testutils, spec, __helpers__, fixtures...)"
            )
        if self.package_dirs:
            text += f" (not the package folders {', '.join(sorted(self.package_dirs)[:5])})"
        if self.roots:
            text += f"; anything under {', '.join(self.roots)}"
        if self.package_roots:
            text += f" (not the packages {', '.join(self.package_roots[:5])}, named in testpaths)"
        return text + f"; code: other {', '.join(self.sources)} files"


def split(paths: Iterable[str], rule: TestPathRule) -> tuple[list[str], list[str]]:
    """(the paths run in the PR's version on both sides, code paths), each sorted: a path
    is code only when ``rule.is_code`` says so."""
    shared: set[str] = set()
    code: set[str] = set()
    for path in paths:
        (code if rule.is_code(path) else shared).add(path)
    return sorted(shared), sorted(code)


def package_testing_dirs(tree: Path, paths: Iterable[str]) -> frozenset[str]:
    """Of the folders named ``testing`` on the way to ``paths``, those that are subpackages
    of a package in ``tree`` (both it and its parent hold an ``__init__.py``) which the
    product itself imports (``test_support.product_imports``): a ``testing`` package only
    the tests load is their support."""
    found: set[str] = set()
    refused: set[str] = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        for depth, part in enumerate(parts[:-1]):
            if part != PACKAGE_TESTING_DIR or depth == 0:
                continue
            folder, parent = "/".join(parts[: depth + 1]), "/".join(parts[:depth])
            if folder in found or folder in refused:
                continue
            packaged = all(
                tree_files.is_plain_file(tree, f"{d}/__init__.py") for d in (folder, parent)
            )
            if packaged and product_imports(tree, folder):
                found.add(folder)
            else:
                refused.add(folder)
    return frozenset(found)


def rule_for(base_tree: Path, runner: Runner | None, changed: Iterable[str] = ()) -> TestPathRule:
    """The rule of base's runner; an own command (``runner`` None) takes the union of both
    families. ``changed`` are the paths it will judge (to find package ``testing`` folders)."""
    packages = package_testing_dirs(base_tree, changed)
    name = CUSTOM_RUNNER if runner is None else runner.name
    family = None if runner is None else runner.test_files
    if family is TestFiles.PYTHON:
        return _pytest_rule(base_tree, packages, name)
    if family is TestFiles.JAVASCRIPT:
        return TestPathRule(name, JS_FILES, JS_DIRS, sources=JS_SOURCES)
    if family is TestFiles.GO:
        return TestPathRule(name, GO_FILES, GO_DIRS, sources=GO_SOURCES)
    py = _pytest_rule(base_tree, packages, name)
    return TestPathRule(
        name,
        py.file_globs + JS_FILES,
        tuple(dict.fromkeys(py.dir_names + JS_DIRS)),
        py.roots,
        py.source,
        package_dirs=packages,
        package_roots=py.package_roots,
    )


def _pytest_rule(tree: Path, packages: frozenset[str], runner: str) -> TestPathRule:
    source, options = _pytest_options(tree)
    files = _words(options.get("python_files")) or list(PYTEST_DEFAULT_FILES)
    named = [r for r in (_root(w) for w in _words(options.get("testpaths"))) if r]
    named = named[:_MAX_PATTERNS]
    own = _distribution_package(tree)
    package_roots = [
        r
        for r in named
        if own is not None
        and r in (own, f"src/{own}")
        and tree_files.is_plain_file(tree, f"{r}/__init__.py")
    ]
    return TestPathRule(
        runner,
        tuple(dict.fromkeys([*files, *PYTHON_ALWAYS]))[:_MAX_PATTERNS],
        PYTHON_DIRS,
        tuple(r for r in named if r not in package_roots),
        source,
        PYTHON_SOURCES,
        packages,
        tuple(package_roots),
    )


def _distribution_package(tree: Path) -> str | None:
    """The import name of base's distribution, from its metadata (never executed): the
    project's name, lowercased, with ``-`` and ``.`` as ``_``."""
    from verify_pr.runners import _files

    project = _files.table(_files.read_toml(tree, "pyproject.toml"), "project") or {}
    name = project.get("name")
    if not isinstance(name, str):
        parser = _files.read_ini(tree, "setup.cfg")
        has = parser is not None and parser.has_option("metadata", "name")
        name = parser.get("metadata", "name") if parser is not None and has else None
    if not isinstance(name, str):
        text = _files.read_text(tree, "setup.py")
        name = _setup_py_name(text) or setup_name.from_package(tree, text)
    if not isinstance(name, str) or not _PROJECT_NAME.fullmatch(name):
        return None
    return name.lower().replace("-", "_").replace(".", "_")


def _setup_py_name(text: str | None) -> str | None:
    """The ``name=`` of setup.py's ``setup(...)`` (or ``setuptools.setup(...)``) call when it
    is a string literal and the only one: parsed, never run; a name made at run time (a
    variable, a format) is no name."""
    if text is None:
        return None
    try:
        module = ast.parse(text, "setup.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names = {
        keyword.value.value
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "setup")
            or (isinstance(node.func, ast.Attribute) and node.func.attr == "setup")
        )
        for keyword in node.keywords
        if keyword.arg == "name"
        and isinstance(keyword.value, ast.Constant)
        and isinstance(keyword.value.value, str)
    }
    return names.pop() if len(names) == 1 else None


def _pytest_options(tree: Path) -> tuple[str, dict[str, Any]]:
    """The first pytest config pytest itself would use, as (where, options)."""
    sources = ini_sources(tree)
    return sources[0] if sources else ("defaults", {})


def _words(value: object) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [w for w in value if isinstance(w, str) and w]
    return []


def _root(word: str) -> str | None:
    """A testpaths entry as a normalised relative folder; globs, '.', '..' and absolutes are
    dropped (a root that is the whole repo would make every file a test)."""
    if any(ch in word for ch in "*?[") or word.startswith("/"):
        return None
    parts = [p for p in PurePosixPath(word).parts if p != "."]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)
