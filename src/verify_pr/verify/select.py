"""Run tests by id, apart from the rest of the suite: the runner's own command with a selector
appended (one test, or the FAIL_TO_PASS tests together).

Selectors are built from a report's testcase (untrusted text), so each is one shell word
(``shlex.quote``) and, for the JavaScript runners, a regular expression with every special
character escaped. A test that cannot be selected gives None: the caller says so.

A pytest testcase whose report names the file that defines its function rather than the module
that collected it (mistune's test methods, made in ``tests/__init__.py`` for each test module's
class) is found through ``IsModule``, asked about the trees the test runs on: a selector that
names the wrong test finds no result under the case's id, and the re-run leaves it unconfirmed.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from verify_pr.contract import RunnerName
from verify_pr.models.report import TRUNCATION_MARKER, TestCase
from verify_pr.sandbox.tree_files import is_plain_file

# Whether a repo-relative path ("a/b.py") is a module of the trees the test runs on.
IsModule = Callable[[str], bool]

_JS_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")
_ESCAPED = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4})")  # clean_text's escapes: not the real name


def _js_escape(text: str) -> str:
    return _JS_SPECIAL.sub(lambda m: "\\" + m.group(), text)


def modules_in(*trees: Path) -> IsModule:
    """``IsModule`` for a path that is a regular file, reached through real folders only (no
    link followed), in every one of ``trees``."""

    def is_module(rel: str) -> bool:
        path = PurePosixPath(rel)
        if "\0" in rel or path.is_absolute() or not path.parts or ".." in path.parts:
            return False
        return all(is_plain_file(tree, rel) for tree in trees)

    return is_module


def pytest_node_id(case: TestCase, is_module: IsModule | None = None) -> str | None:
    """``file::Class::name[params]`` from an xunit1 testcase (file, dotted classname, name).

    An item of a file that is not Python (a golden file or a text doctest a conftest or a
    plugin collects) has its whole dotted path as classname: ``file::name``, or the file
    alone when the item's name is empty (the file is the test: pytest's ``file::``).

    When a Python item's classname is not below its file's module (the file defines the
    function, another module collected it), the classname is the collected node id, dotted:
    with ``is_module``, its longest prefix that names a module is the file."""
    if not case.file or not case.classname:
        return None
    if not case.file.endswith(".py"):
        if case.classname != case.file.replace("/", "."):
            return None
        return f"{case.file}::{case.name}" if case.name else case.file
    module = case.file[: -len(".py")].replace("/", ".")
    if case.classname == module:
        classes: list[str] = []
    elif case.classname.startswith(module + "."):
        classes = case.classname[len(module) + 1 :].split(".")
    else:
        return None if is_module is None else _collected_id(case, is_module)
    return "::".join([case.file, *classes, case.name])


def _collected_id(case: TestCase, is_module: IsModule) -> str | None:
    """``a/b.py::Class::name`` for classname ``a.b.Class``: the longest dotted prefix of the
    classname that ``is_module`` knows as a ``.py`` file, the rest its classes."""
    parts = (case.classname or "").split(".")
    if parts[0].startswith("-") or any(
        not part or "/" in part or "\\" in part or "\0" in part for part in parts
    ):
        return None  # not a module's dotted name, or a word pytest takes for an option
    for cut in range(len(parts), 0, -1):
        file = "/".join(parts[:cut]) + ".py"
        if is_module(file):
            return "::".join([file, *parts[cut:], case.name])
    return None


def selector(runner: str, case: TestCase, is_module: IsModule | None = None) -> str | None:
    """Shell words to append to ``runner``'s command so that only ``case`` runs (``is_module``:
    see ``pytest_node_id``)."""
    text = f"{case.file or ''}{case.classname or ''}{case.name}"
    if TRUNCATION_MARKER in text or "\n" in text:
        return None  # the report changed the name: a selector would not find it
    if _ESCAPED.search(text[: len(text) - len(_pytest_params(runner, case.name))]):
        return None  # clean_text's escape of a character the real name holds
    path = PurePosixPath(case.file or "")
    if case.file is None or path.is_absolute() or ".." in path.parts:
        return None
    if runner == RunnerName.PYTEST:
        node = pytest_node_id(case, is_module)
        return None if node is None else shlex.quote(node)
    if runner == RunnerName.JEST:
        titles = [*case.classname.split(" > ")] if case.classname else []
        name = "^" + _js_escape(" ".join([*titles, case.name])) + "$"
        return " ".join(shlex.quote(w) for w in ("-t", name, "--", _js_escape(case.file)))
    if runner in (RunnerName.VITEST, RunnerName.BUN):
        name = _js_escape(case.name) + "$"
        return " ".join(shlex.quote(w) for w in (case.file, "-t", name))
    return None


def _pytest_params(runner: str, name: str) -> str:
    """A pytest item's parameter id (``[...]`` after the function's name): pytest itself
    writes every character outside printable ASCII there as ``\\xNN``/``\\uNNNN`` (its node id,
    which the command line takes as written), so an escape there is pytest's, not ours. A
    guess that is wrong selects nothing: no result under the id, the re-run unconfirmed."""
    if runner != RunnerName.PYTEST or "[" not in name or not name.endswith("]"):
        return ""
    return name[name.index("[") :]


def batch_selector(
    runner: str, cases: list[TestCase], is_module: IsModule | None = None
) -> str | None:
    """Shell words that run exactly ``cases`` (and, for the JS runners, any test of the same
    files that shares one of their names): one runner process for the whole proof."""
    words = [selector(runner, case, is_module) for case in cases]
    if not cases or any(w is None for w in words):
        return None
    if runner == "pytest":
        return " ".join(w for w in words if w)
    files = list(dict.fromkeys(_js_escape(c.file or "") for c in cases))
    if runner == "jest":
        return " ".join(shlex.quote(w) for w in ("-t", _jest_names(cases), "--", *files))
    names = [_js_escape(c.name) for c in cases]
    pattern = "(?:" + "|".join(dict.fromkeys(names)) + ")$"
    plain = list(dict.fromkeys(c.file or "" for c in cases))  # vitest and bun take paths
    return " ".join(shlex.quote(w) for w in (*plain, "-t", pattern))


def repeated_selector(runner: str, cases: list[TestCase], times: int) -> str | None:
    """Shell words that run exactly ``cases`` ``times`` times over in one runner process, one
    repetition after the other, or None where the runner cannot.

    jest runs a test file as often as ``--runTestsByPath`` names it, each time in a module
    registry and test environment of its own (its isolation between test files), in order
    with ``--runInBand``. vitest and bun run a file once however often it is named, and
    pytest an id once (``--keep-duplicates`` too): they re-run in a process per repetition."""
    if runner != RunnerName.JEST or times < 1 or batch_selector(runner, cases) is None:
        return None
    files = list(dict.fromkeys(c.file or "" for c in cases))  # exact paths, not patterns
    words = ("-t", _jest_names(cases), "--runInBand", "--runTestsByPath", "--", *files * times)
    return " ".join(shlex.quote(w) for w in words)


def _jest_names(cases: list[TestCase]) -> str:
    """jest's ``-t`` pattern for exactly these full names (describe titles, then the test's)."""
    names = [
        _js_escape(" ".join([*(c.classname.split(" > ") if c.classname else []), c.name]))
        for c in cases
    ]
    return "^(?:" + "|".join(dict.fromkeys(names)) + ")$"
