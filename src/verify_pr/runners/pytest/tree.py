"""A Python tree's layout and its own top-level packages, read as data (never executed).

A src layout (declared in pyproject.toml, setup.cfg or setup.py, or a ``src/<name>/`` package
that pyproject's ``[project] name`` names) puts ``/work/src`` on the import path, as an
editable install would. The import probe then asks the interpreter, before the suite runs,
where each of the tree's packages resolves (``importlib.util.find_spec``: nothing imported,
nothing of the tree executed). It is a check for honest mistakes (an installed copy shadowing
the tree): the PR's own code runs in the same container and could lie to it.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from verify_pr.contract import WORK_DIR
from verify_pr.runners import _files

SRC_PATH = f"{WORK_DIR}/src"
PROBE_TAG = "verify-pr-probe:"
MAX_PACKAGES = 32
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
_SETUP_PY_SRC = re.compile(
    r"""package_dir\s*=\s*\{\s*(['"])\1\s*:\s*['"]src['"]|where\s*=\s*\[?\s*['"]src['"]"""
)


def _is_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _get(data: dict[str, Any] | None, *path: str) -> Any:  # noqa: ANN401 - TOML values
    node: Any = data
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _pyproject_src(pyproject: dict[str, Any] | None) -> str | None:
    where = _get(pyproject, "tool", "setuptools", "packages", "find", "where")
    if isinstance(where, list) and "src" in where:
        return "pyproject.toml [tool.setuptools.packages.find] where"
    if _get(pyproject, "tool", "setuptools", "package-dir", "") == "src":
        return "pyproject.toml [tool.setuptools] package-dir"
    packages = _get(pyproject, "tool", "hatch", "build", "targets", "wheel", "packages")
    if isinstance(packages, list) and any(str(p).startswith("src/") for p in packages):
        return "pyproject.toml [tool.hatch.build.targets.wheel] packages"
    poetry = _get(pyproject, "tool", "poetry", "packages")
    if isinstance(poetry, list) and any(_get(p, "from") == "src" for p in poetry):
        return "pyproject.toml [tool.poetry] packages"
    if _get(pyproject, "tool", "pdm", "build", "package-dir") == "src":
        return "pyproject.toml [tool.pdm.build] package-dir"
    return None


def src_layout(tree: Path) -> str | None:
    """Where the tree declares a src layout (a file a maintainer can look at), or None."""
    if not _is_dir(tree / "src"):
        return None
    pyproject = _files.read_toml(tree, "pyproject.toml")
    declared = _pyproject_src(pyproject)
    if declared is not None:
        return declared
    cfg = _files.read_ini(tree, "setup.cfg")
    if cfg is not None:
        if "=src" in cfg.get("options", "package_dir", fallback="").replace(" ", ""):
            return "setup.cfg [options] package_dir"
        if cfg.get("options.packages.find", "where", fallback="").strip() == "src":
            return "setup.cfg [options.packages.find] where"
    setup_py = _files.read_text(tree, "setup.py")
    if setup_py is not None and _SETUP_PY_SRC.search(setup_py):
        return "setup.py package_dir/where"
    name = _get(pyproject, "project", "name")
    if isinstance(name, str):
        module = re.sub(r"[-.]+", "_", name).lower()
        if _NAME.fullmatch(module) and _is_file(tree / "src" / module / "__init__.py"):
            return f"pyproject.toml [project] name (src/{module}/)"
    return None


def tree_packages(tree: Path) -> list[str]:
    """The tree's own top-level packages (directories with an __init__.py, at the top or in
    src/, declared or not), sorted."""
    found: set[str] = set()
    for base in (tree, tree / "src"):
        try:
            with os.scandir(base) as entries:
                names = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        found.update(
            n
            for n in names
            if _NAME.fullmatch(n)
            and not n.startswith("test")
            and _is_file(base / n / "__init__.py")
        )
    return sorted(found)[:MAX_PACKAGES]


# top-level files that are tools of the project, not modules its tests import
# (src: the layout's root, on the path itself, never a module)
_NOT_MODULES = frozenset({"conftest", "setup", "noxfile", "fabfile", "__init__", "__main__", "src"})


def tree_modules(tree: Path) -> list[str]:
    """What ``import NAME`` can find in the tree, for the probe: its packages first, then its
    plain modules (``NAME.py``) and namespace packages (a folder of .py files with no
    __init__.py), at the top and in src/; names that are identifiers and not tests."""
    packages = tree_packages(tree)
    more: set[str] = set()
    for base in (tree, tree / "src"):
        try:
            with os.scandir(base) as entries:
                listed = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        except OSError:
            continue
        for name, is_dir in listed:
            stem = name if is_dir else name.removesuffix(".py")
            if stem == name and not is_dir:
                continue  # not a .py file
            if not _NAME.fullmatch(stem) or stem.startswith("test") or stem in _NOT_MODULES:
                continue
            if (not is_dir and _is_file(base / name)) or (
                is_dir and not _is_file(base / name / "__init__.py") and _holds_python(base / name)
            ):
                more.add(stem)
    return [*packages, *sorted(more - set(packages))][:MAX_PACKAGES]


# folders read below a namespace package candidate, looking for a Python file at any depth
MAX_NAMESPACE_SCAN = 200


def _holds_python(folder: Path) -> bool:
    """A Python file in ``folder`` or below it (bounded, links not followed): a folder whose
    only modules sit in subpackages is a namespace package too (a PR that deletes a package's
    ``__init__.py`` lets an installed copy of the same name win over it; the probe must ask).
    A scan that reaches its bound answers yes (the probe asks one name more)."""
    stack, read = [folder], 0
    while stack:
        read += 1
        if read > MAX_NAMESPACE_SCAN:
            return True
        try:
            with os.scandir(stack.pop()) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            if entry.name.endswith(".py") and entry.is_file(follow_symlinks=False):
                return True
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
    return False


RUNNER_MODULES_TAG = "verify-pr-runner-modules:"


def runner_modules_probe(python: str) -> str:
    """A one-liner printing the top-level modules the image's pytest loads at startup (its
    plugins loaded by ``get_config``), with nothing of the tree on the path (no PYTHONPATH,
    ``-P``): in a src layout, /work/src comes first from the start, so a module there named
    like one of these is what the runner itself loads."""
    code = (
        "import sys\nimport pytest\nfrom _pytest.config import get_config\nget_config()\n"
        f'print("{RUNNER_MODULES_TAG}", " ".join(sorted({{m.partition(".")[0] for m in '
        "sys.modules})))\n"
    )
    return f"env -u PYTHONPATH {python} -c '{code}'"


def runner_modules(output: bytes) -> frozenset[str] | None:
    """The names the probe printed (its first line: printed before any of the tree runs)."""
    for line in output.decode("utf-8", "replace").splitlines():
        if line.startswith(RUNNER_MODULES_TAG + " "):
            names = line[len(RUNNER_MODULES_TAG) + 1 :].split()
            return frozenset(n for n in names if _NAME.fullmatch(n))
    return None


def runtime_shadows(tree: Path, names: frozenset[str] | None) -> list[str]:
    """Signals for each src-layout module named like one the image's pytest loaded at
    startup (read from the run; the standard library's are named statically already)."""
    if src_layout(tree) is None:
        return []
    if names is None:
        return [
            "the image's pytest did not report its startup modules: src-layout modules "
            "that could stand in for them are unchecked"
        ]
    found = []
    for name in sorted(names - set(sys.stdlib_module_names) - {"__main__"}):
        for candidate in (f"{name}.py", name):
            try:
                os.lstat(tree / "src" / candidate)
            except OSError:
                continue
            found.append(
                f"src-layout src/{candidate}: named like {name!r}, which the image's pytest "
                "loads at startup (read from the run): the runner itself imports the tree's copy"
            )
    return found


def probe_command(packages: list[str], python: str = "python3") -> str:
    """A one-liner for ``python`` (the runner's interpreter and its flags) printing, per
    package, where it resolves (names are identifiers)."""
    names = ",".join(f'"{n}"' for n in packages)
    code = (
        "import importlib.util as u, os, sys\n"
        "sys.path.insert(0, os.getcwd())\n"  # as pytest's command does once it has started
        f"for n in ({names},):\n"
        "    try:\n        s = u.find_spec(n)\n    except Exception:\n        s = None\n"
        "    o = s and (s.origin or next(iter(s.submodule_search_locations or ()), None))\n"
        f'    print("{PROBE_TAG}", n, o or "-")\n'
    )
    if "'" in code:  # pragma: no cover - the code is ours; names are identifiers
        raise ValueError("the probe must not contain a single quote")
    return f"{python} -c '{code}'"


def outside_the_tree(output: bytes, packages: list[str]) -> list[str]:
    """Reasons for each package the probe found outside /work (or did not report). The line
    format is shared with the JS probe (:mod:`node_tree`)."""
    seen: dict[str, str] = {}
    for line in output.decode("utf-8", "replace").splitlines():
        if line.startswith(PROBE_TAG + " "):
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in packages and parts[1] not in seen:
                seen[parts[1]] = parts[2]
    reasons = []
    for name in packages:
        where = seen.get(name)
        if where is None:
            reasons.append(f"the import probe did not report where {name!r} comes from")
        elif where == "-":
            continue  # not importable by name: no copy from elsewhere either
        elif not (where == WORK_DIR or where.startswith(WORK_DIR + "/")):
            shown = _files_shown(where)
            reasons.append(
                f"the tests import {name!r} from {shown}, outside the tree: they would test "
                "another copy (one installed in the image), not the PR's code"
            )
    return reasons


def _files_shown(path: str) -> str:
    from verify_pr.models.report import clean_text

    return clean_text(path, 200)
