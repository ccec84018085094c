"""pytest's selection by id: node ids (``file::Class::name[params]``) from xunit1 testcases.

A pytest testcase whose report names the file that defines its function rather than the module
that collected it (mistune's test methods, made in ``tests/__init__.py`` for each test module's
class) is found through ``IsModule``, asked about the trees the test runs on: a selector that
names the wrong test finds no result under the case's id, and the re-run leaves it unconfirmed.
"""

from __future__ import annotations

from verify_pr.models.report import TestCase
from verify_pr.runners._select import selectable
from verify_pr.runners.base import Argv, IsModule


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


def params(name: str) -> str:
    """A pytest item's parameter id (``[...]`` after the function's name): pytest itself
    writes every character outside printable ASCII there as ``\\xNN``/``\\uNNNN`` (its node id,
    which the command line takes as written), so an escape there is pytest's, not ours. A
    guess that is wrong selects nothing: no result under the id, the re-run unconfirmed."""
    if "[" not in name or not name.endswith("]"):
        return ""
    return name[name.index("[") :]


def select(case: TestCase, is_module: IsModule | None = None) -> Argv | None:
    if not selectable(case, params(case.name)):
        return None
    node = pytest_node_id(case, is_module)
    return None if node is None else (node,)


def select_batch(cases: list[TestCase], is_module: IsModule | None = None) -> Argv | None:
    """The node ids of ``cases``, all in one process."""
    words = [select(case, is_module) for case in cases]
    if not cases or any(w is None for w in words):
        return None
    return tuple(word for w in words if w for word in w)
