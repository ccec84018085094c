"""Static reading of the package's imports, shared by the layering and the import-circle tests.

Every import statement is read from the syntax tree, including those inside functions and
under ``if TYPE_CHECKING:``, which an import at run time would not reveal.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "verify_pr"


def package_of(path: Path, root: Path = PACKAGE) -> tuple[str, ...]:
    """The package a module file belongs to (``runners/pytest/runner.py`` -> ``verify_pr.runners.pytest``)."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return parts[:-1] if parts[-1] != "__init__" else parts


def module_name(path: Path, root: Path = PACKAGE) -> str:
    """The dotted name of a module file (a package's ``__init__.py`` is the package)."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, package: tuple[str, ...]) -> list[str]:
    """Every module an import statement names, at any depth (relative ones resolved).

    ``from a import b`` yields both ``a`` and ``a.b``: which one is a module is for the caller.
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], base]).rstrip(".")
            found.append(base)
            found += [f"{base}.{alias.name}" for alias in node.names]
    return found


def _targets(node: ast.Import | ast.ImportFrom, package: tuple[str, ...]) -> list[str]:
    """The modules one import statement loads by name, as candidates (longest first)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        base = ".".join([*package[: len(package) - node.level + 1], base]).rstrip(".")
    return [f"{base}.{alias.name}" for alias in node.names] + [base]


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, read statically from every file.

    ``from pkg import mod`` is an edge to ``pkg.mod``; to ``pkg`` when a name is not a module.
    Python also runs ``pkg/__init__`` first, but it does so for every submodule: counting that
    would make each package that re-exports its children a circle.
    """
    files = sorted(root.rglob("*.py"))
    modules = {module_name(path, root) for path in files}
    graph: dict[str, set[str]] = {}
    for path in files:
        here = module_name(path, root)
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = _targets(node, package_of(path, root))
            submodules = {n for n in names[:-1] if n in modules}
            if isinstance(node, ast.Import):
                targets |= {n for n in names if n in modules}
            elif submodules and len(submodules) == len(names) - 1:
                targets |= submodules
            else:
                targets |= submodules | ({names[-1]} & modules)
        graph[here] = targets - {here}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One import circle (``a -> b -> ... -> a``) per strongly connected group of 2 or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm; the package is far from 1000 deep
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [_circle_in(graph, group) for group in groups]


def _circle_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest circle through the group's first module, found breadth first."""
    start = min(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for nxt in sorted(graph[node] & group):
            if nxt == start:
                return [*paths[node], start]
            if nxt not in paths:
                paths[nxt] = [*paths[node], nxt]
                queue.append(nxt)
    raise AssertionError(f"no circle in a strongly connected group: {sorted(group)}")
