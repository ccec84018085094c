"""Harness that pytest loads through a test module, or that a harness file imports for its hooks.

Two ways the runner's own hooks reach code the name rule and the import closure call product:

- ``pytest_plugins`` in a test module: pytest imports every module it names as a plugin when it
  imports the test module (``consider_module``), so each is harness wherever it lives, as when
  a conftest names it. ``plugin_refs`` reads the names from the assignment's value (``ast``,
  never run); a value it cannot read as written makes every string of the file a candidate
  (fail closed: more harness, never less).
- A product module a harness file imports (``from helper import *`` in a conftest, the tests
  importing ``helper`` too) that defines hooks: the conftest takes them into its namespace and
  pytest runs them as the conftest's. Such a module is harness where the hooks are
  (``defines_hooks``: a ``pytest_*`` function or name, a ``@...hookimpl`` decorator, a fixture
  whose ``autouse=`` is not ``False``,
  read from its bytes, in either tree, or from a module it star-imports). A hook need not be
  written as one: ``globals()["pytest_" + name] = hook`` in the module, or ``setattr`` on the
  conftest's module in ``sys.modules`` while the conftest imports it, binds a hook no line
  names. So a module that binds names dynamically, or names ``pytest_``/``hookimpl``/``autouse``
  in any form in its code (its comments are not read: ``without_comments``), is taken as
  defining hooks (fail closed; issue 33, classes 4 and 7). Residual:
  a module the imported one imports itself (not star) is not read.

Pure: bytes in, answers out. ``closure`` walks the trees.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from verify_pr.verify.harness.refs import Ref, named_refs

PLUGINS_NAME = b"pytest_plugins"
# A hook by name (a def, or a name bound to one), an explicit hook implementation, or a
# fixture that runs around every test without being asked for.
_HOOKS = re.compile(
    rb"(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+pytest_\w+"
    rb"|^[ \t]*pytest_\w+[ \t]*(?::[^=\n]*)?="
    rb"|^[ \t]*@[\w.]*hookimpl\b|\bautouse[ \t]*=[ \t]*(?!False\b)\w"
)
# What binds a name the reader cannot see (issue 33, classes 4 and 7): a computed write into a
# namespace, its own (``globals()[...] =``, ``vars()``, ``setattr``, ``exec``) or the
# conftest's before pytest registers it (``sys.modules["conftest"]``, a frame's globals, the
# garbage collector's view), a hook implementation or an autouse fixture made by a call
# rather than a line (``pytest.hookimpl(...)(f)``, ``fixture(**{"autouse": True})``), any
# ``pytest_`` name written anywhere (a string, an import: the word, not ``my_pytest_x``).
# Fail closed: a module imported by a harness file that says any of it is harness, whatever
# it computes.
_DYNAMIC = re.compile(
    rb"\b(?:globals|vars|locals|setattr|delattr|exec|eval|compile|__import__|import_module)"
    rb"[ \t]*\(|__dict__|\bsys[ \t]*\.[ \t]*modules\b|\bfrom[ \t]+sys[ \t]+import\b"
    rb"|_getframe|\bf_(?:globals|locals|back)\b|\bcurrentframe\b|\bbuiltins\b|__builtins__"
    rb"|\bget_(?:objects|referrers|referents)\b|\bctypes\b|\bhookimpl[ \t]*\("
    rb"|[\"']autouse|\bfixture\b[^\n]*\*\*|\bpytest_"
)
_STAR = re.compile(rb"(?m)(?:^|;)[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*\(?[ \t]*\*")


def defines_hooks(text: bytes) -> bool:
    """Whether a module's bytes define something pytest runs as a hook or around every test,
    or could bind one under a name computed at run time (``_DYNAMIC``). Its comments are not
    read: no comment binds a name (a comment saying ``__dict__`` made packaging's markers.py
    harness, and with it the fixed module it imports: issue 36)."""
    code = without_comments(text)
    return _HOOKS.search(code) is not None or _DYNAMIC.search(code) is not None


def without_comments(text: bytes) -> bytes:
    """The module's text with each comment blanked, as Python's own tokenizer finds them
    (never a ``#`` inside a string), in UTF-8; the bytes unchanged when they do not tokenize
    (an error, an unknown encoding): what cannot be read as Python keeps every word."""
    lines: list[str] = []
    comments: list[tuple[int, int, int]] = []
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(text).readline)
        # the lines as the tokenizer reads them, so its (row, column) land where it says
        lines = [raw.decode(encoding) for raw in io.BytesIO(text).readlines()]
        for token in tokenize.tokenize(io.BytesIO(text).readline):
            if token.type == tokenize.COMMENT and token.start[0] == token.end[0]:
                comments.append((token.start[0], token.start[1], token.end[1]))
    except (SyntaxError, tokenize.TokenError, UnicodeDecodeError, LookupError, ValueError):
        return text
    for row, start, end in comments:
        line = lines[row - 1]
        lines[row - 1] = line[:start] + " " * (end - start) + line[end:]
    return "".join(lines).encode("utf-8", "surrogatepass")


def star_imports(text: bytes) -> list[str]:
    """The modules a file star-imports (``from x import *``), as written (dots kept)."""
    return [m.group(1).decode("ascii", "replace") for m in _STAR.finditer(text)]


def plugin_refs(path: str, text: bytes) -> list[Ref]:
    """What a Python module's ``pytest_plugins`` names (empty when it names none)."""
    if PLUGINS_NAME not in text:
        return []
    try:
        module = ast.parse(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return named_refs(path, text)  # unreadable here: every string may be a plugin
    found: list[Ref] = []
    for node in ast.walk(module):
        value = _assigned(node)
        if value is None:
            continue
        segment = ast.get_source_segment(text.decode("utf-8", "replace"), value)
        if segment is None or not _literal(value):
            return named_refs(path, text)
        found += named_refs(path, segment.encode())
    if not found and not any(_assigned(n) is not None for n in ast.walk(module)):
        # named, but not as a plain assignment (globals(), setattr...): read every string
        return named_refs(path, text)
    return found


def _assigned(node: ast.AST) -> ast.expr | None:
    """The value bound to ``pytest_plugins`` by this statement, if it binds it."""
    if isinstance(node, ast.Assign):
        if any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets):
            return node.value
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        target = node.target
        if isinstance(target, ast.Name) and target.id == "pytest_plugins":
            return node.value
    return None


def _literal(value: ast.expr) -> bool:
    """A string, or a list/tuple/set of strings, as written."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str)
    if isinstance(value, ast.List | ast.Tuple | ast.Set):
        return all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)
    return False
