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

from verify_pr.runners.pytest import PYTEST_MAIN

# Runs in the image's python3 (3.8+). Names start with _vpr_ and are deleted: the tests' own
# globals are pytest's, not this module's, but the -c namespace is shared with PYTEST_MAIN.
_BOOT = r"""
def _vpr_cov(files, out):
    import atexit, json, sys, threading
    hits = {"/work/" + f: set() for f in files}

    def local(frame, event, arg):
        if event == "line":
            hits[frame.f_code.co_filename].add(frame.f_lineno)
        return local

    def glob(frame, event, arg):
        return local if frame.f_code.co_filename in hits else None

    comprehensions = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")

    def shape(path):
        with open(path, "rb") as handle:
            code = compile(handle.read(), path, "exec", dont_inherit=True)
        top, body = set(), set()

        def walk(co, in_function):
            if hasattr(co, "co_lines"):
                lines = {n for _, _, n in co.co_lines() if n}
            else:
                import dis
                lines = {n for _, n in dis.findlinestarts(co) if n}
            (body if in_function else top).update(lines)
            for const in co.co_consts:
                if hasattr(const, "co_code"):
                    inner = in_function or (
                        bool(const.co_flags & 1) and const.co_name not in comprehensions
                    )
                    walk(const, inner)

        walk(code, False)
        return sorted(top | body), sorted(body - top)

    def write():
        sys.settrace(None)
        threading.settrace(None)
        runtime = "python " + sys.version.split()[0]
        doc = {"version": 1, "tracer": "settrace", "runtime": runtime, "files": {}}
        for rel in files:
            path = "/work/" + rel
            try:
                executable, function = shape(path)
            except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
                executable, function = None, None
            doc["files"][rel] = {
                "executable": executable,
                "function": function,
                "run": sorted(hits[path]),
            }
        with open(out, "w") as handle:
            json.dump(doc, handle)

    atexit.register(write)
    threading.settrace(glob)
    sys.settrace(glob)
"""


def bootstrap(files: list[str], coverage_path: str) -> str:
    """Python code (no single quotes: it goes inside the command's ``-c '...'``) that starts
    the tracer for ``files`` (repo-relative) and writes to ``coverage_path`` at exit."""
    call = f"{_BOOT}\n_vpr_cov({json.dumps(files)}, {json.dumps(coverage_path)})\ndel _vpr_cov\n"
    encoded = base64.b64encode(call.encode()).decode("ascii")
    return f'exec(__import__("base64").b64decode("{encoded}").decode()); '


def instrument(command: str, files: list[str], coverage_path: str) -> str | None:
    """``command`` with the tracer started before pytest; None when it is not our pytest
    command (an own command, or a changed bootstrap): then coverage is not measured."""
    main = f"-c '{PYTEST_MAIN}'"
    if command.count(main) != 1:
        return None
    return command.replace(main, f"-c '{bootstrap(files, coverage_path)}{PYTEST_MAIN}'")
