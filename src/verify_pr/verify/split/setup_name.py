"""The name setup.py gives its distribution through its own package: read, never run.

``import sortedcontainers`` then ``setup(name=sortedcontainers.__title__)``, or
``from pkg import __title__`` then ``setup(name=__title__)``: the name is the package's own
attribute. It counts only when all of this holds in base's tree, read with ``ast``:
- setup.py imports the package by that one name (``import pkg``, ``from pkg import attr``),
  and the keyword is that package's attribute (``pkg.attr`` or the imported ``attr``);
- the package is local (``pkg/__init__.py`` or ``src/pkg/__init__.py``, a plain file) and
  assigns the attribute one string literal at its top level, once;
- that string, normalised as a distribution's import name, is the package's own name: the
  package setup.py imports from the tree is the one it names.
Anything else (a format, a second assignment, another package's title) is no name, and the
testpaths entry stays a folder of tests (``testpaths``: the cautious side).
"""

from __future__ import annotations

import ast
from pathlib import Path

from verify_pr.sandbox import tree_files

_MAX_INIT_BYTES = 256 * 1024
_PACKAGE_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def from_package(tree: Path, text: str | None) -> str | None:
    """The ``name=`` of setup.py's ``setup(...)`` call (its only one) when it is its own
    package's string attribute (see the module's docstring); None otherwise."""
    if text is None:
        return None
    try:
        module = ast.parse(text, "setup.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    imported = _imports(module)
    named = [
        _reference(keyword.value, imported)
        for node in ast.walk(module)
        if isinstance(node, ast.Call) and _is_setup(node.func)
        for keyword in node.keywords
        if keyword.arg == "name"
    ]
    if len(named) != 1 or named[0] is None:
        return None
    package, attribute = named[0]
    value = _literal(tree, package, attribute)
    if value is None or value.lower().replace("-", "_").replace(".", "_") != package.lower():
        return None
    return value


def _is_setup(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "setup") or (
        isinstance(func, ast.Attribute) and func.attr == "setup"
    )


def _imports(module: ast.Module) -> dict[str, tuple[str, str | None]]:
    """Top-level imports of one-word packages: bound name -> (package, attribute or None)."""
    bound: dict[str, tuple[str, str | None]] = {}
    for node in module.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if "." not in alias.name:
                    bound[alias.asname or alias.name] = (alias.name, None)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if "." in node.module:
                continue
            for alias in node.names:
                bound[alias.asname or alias.name] = (node.module, alias.name)
    return bound


def _reference(
    value: ast.expr, imported: dict[str, tuple[str, str | None]]
) -> tuple[str, str] | None:
    """(package, attribute) that ``value`` names through setup.py's imports."""
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
        package, attribute = imported.get(value.value.id, ("", ""))
        return (package, value.attr) if package and attribute is None else None
    if isinstance(value, ast.Name):
        package, attr = imported.get(value.id, ("", None))
        return (package, attr) if package and attr else None
    return None


def _literal(tree: Path, package: str, attribute: str) -> str | None:
    """The one string literal the local package's ``__init__.py`` assigns ``attribute``."""
    if not package or not set(package) <= _PACKAGE_NAME_CHARS:
        return None
    inits = [
        rel
        for rel in (f"{package}/__init__.py", f"src/{package}/__init__.py")
        if tree_files.is_plain_file(tree, rel)
    ]
    if len(inits) != 1:
        return None
    data = tree_files.read_nested(tree, inits[0], _MAX_INIT_BYTES)
    if data is None:
        return None
    try:
        module = ast.parse(data, inits[0])
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    values = [
        node.value.value if isinstance(node.value, ast.Constant) else None
        for node in module.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == attribute for t in node.targets)
    ]
    if len(values) != 1 or not isinstance(values[0], str):
        return None
    return values[0]
