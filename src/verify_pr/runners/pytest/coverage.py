"""Line coverage of the PR's changed Python files, measured inside pytest's own process.

The image's standard library does it (``sys.settrace``; the verify-pr-python image is 3.11, no
coverage.py): a tracer limited to the changed files, started by our bootstrap in pytest's
``-c`` code (nothing is written into the checkout), writing at exit a JSON document to the
coverage path only the command line names. A global trace function that returns ``None``
for every other file keeps the suite's cost down (``bench/coverage_cost.py``).

At exit the bootstrap also compiles each changed file with the image's interpreter (compiling
runs nothing) to say which lines are executable and which of those only an import runs
(module and class bodies, ``def`` lines): the host has no interpreter of the image's version
to ask. What it returns is the PR's process's word: data, parsed strictly, never a proof.
"""

from __future__ import annotations

import base64
import json
import zlib

from verify_pr.runners.pytest.command import PYTEST_MAIN

# Runs in the image's python3 (3.8+). Names start with _vpr_ and are deleted: the tests' own
# globals are pytest's, not this module's, but the -c namespace is shared with PYTEST_MAIN.
_BOOT = r"""
def _vpr_cov(files, out):
    import ast, atexit, builtins, json, sys
    from importlib import machinery

    targets = {"/work/" + f: (i, f) for i, f in enumerate(files)}
    hits = [set() for _ in files]
    shapes = {}  # rel -> (executable, in functions, {probe key: its lines})

    def span(node):
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            return range(first, max(node.lineno, body[0].lineno - 1) + 1)
        if getattr(node, "cases", None):
            return range(first, max(node.lineno, node.cases[0].pattern.lineno - 1) + 1)
        return range(first, (node.end_lineno or node.lineno) + 1)

    def probe(name, key, at):
        call = ast.Call(ast.Name(name, ast.Load()), [ast.Constant(key)], [])
        return ast.copy_location(ast.Expr(call), at)

    def walk(stmts, name, shape, in_function, top):
        out = []
        for index, node in enumerate(stmts):
            doc = (
                index == 0
                and isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            )
            future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
            if doc or (top and future):
                out.append(node)
                continue
            lines = span(node)
            shape[0].update(lines)
            if in_function:
                shape[1].update(lines)
            shape[2].setdefault(node.lineno, set()).update(lines)
            inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            for field in ("body", "orelse", "finalbody"):
                value = getattr(node, field, None)
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    setattr(node, field, walk(value, name, shape, inner, False))
            for part in getattr(node, "handlers", None) or []:
                part.body = walk(part.body, name, shape, inner, False)
            for part in getattr(node, "cases", None) or []:
                part.body = walk(part.body, name, shape, inner, False)
            out.append(probe(name, node.lineno, node))
            out.append(node)
        return out

    def instrument(source, path):
        index, rel = targets[path]
        tree = ast.parse(source, path)
        shape = (set(), set(), {})
        name = "__vpr_hit_%d__" % index
        tree.body = walk(tree.body, name, shape, False, True)
        shapes[rel] = shape
        setattr(builtins, name, hits[index].add)
        return compile(ast.fix_missing_locations(tree), path, "exec", dont_inherit=True)

    class Loader(machinery.SourceFileLoader):
        def get_code(self, fullname):
            path = self.get_filename(fullname)
            source = self.get_data(path)
            try:
                return instrument(source, path)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return compile(source, path, "exec", dont_inherit=True)

    class Finder:
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            spec = machinery.PathFinder.find_spec(name, path, target)
            loader = getattr(spec, "loader", None)
            if spec is not None and spec.origin in targets:
                if type(loader) is machinery.SourceFileLoader:
                    spec.loader = Loader(loader.name, loader.path)
            return spec

        @classmethod
        def invalidate_caches(cls):
            pass

    def write():
        doc = {"version": 1, "tracer": "ast-probes", "files": {}}
        doc["runtime"] = "python " + sys.version.split()[0]
        for path, (index, rel) in targets.items():
            if rel not in shapes:  # never imported: its shape from parsing it (nothing runs)
                try:
                    with open(path, "rb") as handle:
                        source = handle.read()
                    shape = (set(), set(), {})
                    walk(ast.parse(source, path).body, "_", shape, False, True)
                    shapes[rel] = shape
                except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                    doc["files"][rel] = {"executable": None, "function": None, "run": []}
                    continue
            executable, inside, spans = shapes[rel]
            run = set()
            for key in hits[index]:
                run.update(spans.get(key, ()))
            doc["files"][rel] = {
                "executable": sorted(executable),
                "function": sorted(inside),
                "run": sorted(run & executable),
            }
        with open(out, "w") as handle:
            json.dump(doc, handle)

    atexit.register(write)
    sys.meta_path.insert(0, Finder)
"""


def bootstrap(files: list[str], coverage_path: str) -> str:
    """Python code (no single quotes: it goes inside the command's ``-c '...'``) that starts
    the tracer for ``files`` (repo-relative) and writes to ``coverage_path`` at exit."""
    call = f"{_BOOT}\n_vpr_cov({json.dumps(files)}, {json.dumps(coverage_path)})\ndel _vpr_cov\n"
    # compressed: the command is shown (cut at 4096 characters) in verdict.json
    encoded = base64.b64encode(zlib.compress(call.encode(), 9)).decode("ascii")
    return (
        'exec(__import__("zlib").decompress(__import__("base64").b64decode('
        f'"{encoded}")).decode()); '
    )


def instrument(command: str, files: list[str], coverage_path: str) -> str | None:
    """``command`` with the tracer started before pytest; None when it is not our pytest
    command (an own command, or a changed bootstrap): then coverage is not measured."""
    main = f"-c '{PYTEST_MAIN}'"
    if command.count(main) != 1:
        return None
    return command.replace(main, f"-c '{bootstrap(files, coverage_path)}{PYTEST_MAIN}'")
