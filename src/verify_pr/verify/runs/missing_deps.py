"""A run whose only failures are test files that could not import a module the tree does not
hold: evidence about the image (it lacks a dependency), not about the PR, so NOT PROVEN.

The rule fails closed, towards FAIL, at every step:

- every failing testcase must be a load failure (a pytest collection error, a jest/vitest suite
  that failed before any test ran); one test that ran and failed keeps the run FAIL, so a PR
  cannot hide an assertion failure behind another file's missing import;
- each load failure's text must name the module (``No module named 'x'``, ``Cannot find module
  'x'``, ``Cannot find package 'x'``); any other load error (a syntax error, an ImportError of a
  name) is the PR's own code failing: FAIL;
- the module must be a dependency, not the tree's: a relative or aliased Node specifier
  (``./x``, ``#x``, ``~/x``, ``@/x``, ``node:x``), or a name that any file or directory of the
  tree carries (``x/``, ``x.py``, ``x.js``..., at any depth, since a test runner may put any
  folder on the path), is the PR's (a file it deleted or misnamed): FAIL. A walk that stops at
  its entry cap counts as "in the tree".

What a PR can still do: make a test file fail to import something. That removes the file's
tests from the run, exactly as deleting them would; a run never proves the absence of tests
(compare does), and NOT PROVEN is neutral, never a pass. pytest stops after a collection error,
so one such file leaves the whole pytest suite unrun: no test ran, nothing was shown failing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from verify_pr.models.report import FAILING, TestReport, clean_text, is_load_failure
from verify_pr.runners import _files

_MODULE = re.compile(
    r"(?:No module named|Cannot find module|Cannot find package) ['\"]([^'\"\s]{1,200})['\"]"
)
_PYTHON_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
# An npm package name (lowercase; scoped or not) with an optional subpath.
_NPM_NAME = re.compile(r"(?:@([a-z0-9][a-z0-9._~-]*)/)?([a-z0-9][a-z0-9._~-]*)(?:/[^\s]*)?")
_SOURCE_SUFFIXES = (
    *(".py", ".pyi", ".so", ".pyd"),
    *(".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx", ".json", ".node"),
)


NOT_PROVEN_PREFIX = "the image lacks the module(s) "
DEPENDENCIES_PREFIX = "dependencies must already be in the image"


@dataclass(frozen=True)
class MissingModule:
    file: str  # the test file that could not load
    module: str  # the module it could not import, as the runner named it


def module_named(text: str) -> str | None:
    """The module a load error says could not be found, if it says so."""
    match = _MODULE.search(text)
    return match.group(1) if match is not None else None


def _candidates(module: str) -> set[str] | None:
    """The names a tree file or directory would carry if it held ``module``; None when the
    specifier is the tree's by its form (relative, aliased, builtin) or unrecognised."""
    if _PYTHON_NAME.fullmatch(module):
        return {module.split(".")[0], module}
    npm = _NPM_NAME.fullmatch(module)
    if npm is None:
        return None  # ./x, /x, #x, ~/x, @/x, node:x, C:\x...
    scope, name = npm.groups()
    return {name} if scope is None else {name, f"@{scope}"}


def _names_in(tree: Path) -> set[str] | None:
    """Every file and directory name in the tree (and each file's stem for source suffixes),
    plus what its top-level node_modules holds; None when the walk hit its cap."""
    dirs, files, capped = _files.walk(tree)
    if capped:
        return None
    names = {Path(d).name for d in dirs}
    for f in files:
        name = Path(f).name
        names.add(name)
        for suffix in _SOURCE_SUFFIXES:
            if name.endswith(suffix):
                names.update({name[: -len(suffix)], name.split(".")[0]})
    try:
        with os.scandir(tree / "node_modules") as entries:
            names.update(e.name for e in entries)
    except OSError:
        pass
    pkg_name = _files.package_json(tree).get("name")
    if isinstance(pkg_name, str):
        names.update(pkg_name.split("/"))
    return names


def missing_modules(
    report: TestReport, tree: Path | None, texts: Mapping[str, str] | None = None
) -> list[MissingModule] | None:
    """Each failing test file's missing dependency, when every failure is one; else None.

    ``texts`` holds pytest's collection-error text per file (its report keeps only
    "collection failure" as the message: see :mod:`loaderrors`). Without the tree (``None``)
    nothing can be shown to be outside it: None.
    """
    failing = [c for c in report.testcases if c.status in FAILING]
    if not failing or tree is None:
        return None
    found: list[MissingModule] = []
    wanted: set[str] = set()
    for case in failing:
        if not is_load_failure(case):
            return None
        text = (texts or {}).get(case.file or "") or case.message or ""
        module = module_named(text)
        names = _candidates(module) if module is not None else None
        if module is None or not names:
            return None
        wanted |= names
        found.append(MissingModule(case.file or "", clean_text(module, 200)))
    in_tree = _names_in(tree)
    if in_tree is None or wanted & in_tree:
        return None
    return list({(m.file, m.module): m for m in found}.values())


def reasons(missing: list[MissingModule]) -> list[str]:
    """What NOT PROVEN says: the modules, the files, and what to do."""
    modules = sorted({m.module for m in missing})
    files = sorted({m.file for m in missing})
    shown = ", ".join(repr(m) for m in modules[:5]) + (" ..." if len(modules) > 5 else "")
    where = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return [
        f"{NOT_PROVEN_PREFIX}{shown}: {len(files)} test file(s) could not load "
        f"({where}), and the tree holds no such module",
        f"{DEPENDENCIES_PREFIX} (verify-pr never installs them); no test that ran failed",
    ]
