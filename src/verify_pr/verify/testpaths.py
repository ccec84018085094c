"""Which paths are tests: the rule is read from BASE's configuration, never head's.

A path is a test path when the runner of base would treat it as part of the tests: a test
module, a conftest, a snapshot, or any file under a test folder (its data and fixture files:
a golden file rewritten by the PR is a test change, not a code change). Everything else is
code. The rule only reads files (never executes config) and is recorded in the result file.

pytest: base's ``python_files`` (default ``test_*.py *_test.py``), ``conftest.py``, every file
under base's ``testpaths`` entries, and every file under a folder named test, tests or testing.
jest, vitest, bun: ``*.test.*``, ``*.spec.*``, ``*_test.*``, ``*_spec.*``, ``*.snap``, and every
file under ``__tests__``, ``__snapshots__``, ``__mocks__``, ``__fixtures__``, ``fixtures``,
test or tests folders. (A ``testMatch`` or ``include`` in a JavaScript config is code, not
data, and is not read: the defaults above are the rule.)
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from verify_pr.contract import RunnerName
from verify_pr.runners import _files

PYTEST_DEFAULT_FILES: tuple[str, ...] = ("test_*.py", "*_test.py")
PYTHON_ALWAYS: tuple[str, ...] = ("conftest.py",)
PYTHON_DIRS: tuple[str, ...] = ("test", "tests", "testing")
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
_PYTEST_CONFIGS = (
    ("pytest.toml", ("pytest",)),
    (".pytest.toml", ("pytest",)),
)
_PYTEST_INIS: tuple[tuple[str, str], ...] = (
    ("pytest.ini", "pytest"),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)
_MAX_PATTERNS = 50


@dataclass(frozen=True)
class TestPathRule:
    """File-name globs, folder names at any depth, and folder prefixes."""

    __test__ = False

    runner: str
    file_globs: tuple[str, ...]
    dir_names: tuple[str, ...]
    roots: tuple[str, ...] = ()
    source: str = "defaults"

    def is_test(self, path: str) -> bool:
        parts = PurePosixPath(path).parts
        if not parts:
            return False
        if any(fnmatch.fnmatchcase(parts[-1], glob) for glob in self.file_globs):
            return True
        if any(part in self.dir_names for part in parts[:-1]):
            return True
        return any(path == root or path.startswith(root + "/") for root in self.roots)

    def describe(self) -> str:
        text = f"{self.runner} rule from base's {self.source}: files {', '.join(self.file_globs)}"
        if self.dir_names:
            text += f"; anything under folders named {', '.join(self.dir_names)}"
        if self.roots:
            text += f"; anything under {', '.join(self.roots)}"
        return text


def split(paths: Iterable[str], rule: TestPathRule) -> tuple[list[str], list[str]]:
    """(test paths, code paths), each sorted."""
    tests: set[str] = set()
    code: set[str] = set()
    for path in paths:
        (tests if rule.is_test(path) else code).add(path)
    return sorted(tests), sorted(code)


def rule_for(base_tree: Path, runner: str) -> TestPathRule:
    """The rule of base's runner; ``custom`` (own command) takes the union of both families."""
    if runner == RunnerName.PYTEST:
        return _pytest_rule(base_tree)
    if runner in (RunnerName.JEST, RunnerName.VITEST, RunnerName.BUN):
        return TestPathRule(runner, JS_FILES, JS_DIRS)
    py = _pytest_rule(base_tree)
    return TestPathRule(
        runner,
        py.file_globs + JS_FILES,
        tuple(dict.fromkeys(py.dir_names + JS_DIRS)),
        py.roots,
        py.source,
    )


def _pytest_rule(tree: Path) -> TestPathRule:
    source, options = _pytest_options(tree)
    files = _words(options.get("python_files")) or list(PYTEST_DEFAULT_FILES)
    roots = [r for r in (_root(w) for w in _words(options.get("testpaths"))) if r]
    return TestPathRule(
        "pytest",
        tuple(dict.fromkeys([*files, *PYTHON_ALWAYS]))[:_MAX_PATTERNS],
        PYTHON_DIRS,
        tuple(roots[:_MAX_PATTERNS]),
        source,
    )


def _pytest_options(tree: Path) -> tuple[str, dict[str, Any]]:
    """The first pytest config pytest itself would use, as (where, options)."""
    for name, keys in _PYTEST_CONFIGS:
        if _files.entry(tree, name) is _files.Entry.FILE:
            return name, _files.table(_files.read_toml(tree, name), *keys) or {}
    if _files.entry(tree, "pytest.ini") is _files.Entry.FILE:
        return "pytest.ini", _ini(tree, "pytest.ini", "pytest") or {}
    pyproject = _files.read_toml(tree, "pyproject.toml")
    for table in (("tool", "pytest", "ini_options"), ("tool", "pytest")):
        found = _files.table(pyproject, *table)
        if found is not None:
            return f"pyproject.toml [{'.'.join(table)}]", found
    for name, section in _PYTEST_INIS[1:]:
        options = _ini(tree, name, section)
        if options is not None:
            return f"{name} [{section}]", options
    return "defaults", {}


def _ini(tree: Path, name: str, section: str) -> dict[str, Any] | None:
    parser = _files.read_ini(tree, name)
    if parser is None or not parser.has_section(section):
        return None
    return dict(parser.items(section))


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
