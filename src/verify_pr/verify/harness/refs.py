"""What a harness file refers to, from its bytes alone: modules it imports, paths it names.

The pure half of the harness scan (``closure`` is the other: the trees, the closure):
text in, references out, in the order they stand, with no file read and nothing executed. A
reference is a module (``root`` + dotted name, as an ``import`` or pytest would look it up)
or a candidate path; the closure keeps those that exist in the trees.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import PurePosixPath
from typing import NamedTuple

from verify_pr.runners.detect import all_runners
from verify_pr.verify.harness.names import ENTRY_POINTS

PY_SUFFIXES = (".py", ".pth")
_JS_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx")
_CONFIG_SUFFIXES = (".json", ".toml", ".ini", ".cfg", ".yaml", ".yml")
_ENTRY_POINT = re.compile(rb"(?m)^[^=\n#\[]+=[ \t]*([A-Za-z_][\w.]*)")
_SCANNED = (*PY_SUFFIXES, *_JS_SUFFIXES, *_CONFIG_SUFFIXES, ENTRY_POINTS)
_NOT_SCANNED = ("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml")
_JS_RESOLVE = ("", *_JS_SUFFIXES, ".json")

_IMPORT = re.compile(rb"(?m)(?:^|;)[ \t]*import[ \t]+([\w. \t,]+)")
_FROM = re.compile(rb"(?m)(?:^|;)[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)")
# Quoted strings (escapes skipped, so a backslash cannot shift the pairing), and, as a net
# for quote games in comments, every unquoted run of path characters.
_SINGLE = rb"'((?:[^'\\\n]|\\.)*)'"
_DOUBLE = rb'"((?:[^"\\\n]|\\.)*)"'
_PY_STRING = re.compile(_SINGLE + b"|" + _DOUBLE)
_JS_STRING = re.compile(_SINGLE + b"|" + _DOUBLE + rb"|`((?:[^`\\]|\\.)*)`")
_PATH_TOKEN = re.compile(rb"[\w@.<>/$~+-]+")
MAX_STRING_CHARS = 300
_PLUGIN_FLAG = re.compile(rb"(?:^|[\s\"'=\[,])-p[ \t]*([\w.]+)")
_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


class ModuleRef(NamedTuple):
    """``import dotted`` looked up from ``root`` (a folder of the tree, "" for its top)."""

    root: str
    dotted: str
    imported: bool = False  # an import statement (product code is not followed), not a string


class PathRef(NamedTuple):
    """A path the file may name (one of the ways Node or jest would resolve a string)."""

    path: str


Ref = ModuleRef | PathRef


def scannable(path: str) -> bool:
    name = PurePosixPath(path).name
    return name.endswith(_SCANNED) and name not in _NOT_SCANNED


def roots(path: str) -> list[str]:
    """Where Python may find a top-level module for ``path``: its folder and each above it
    (pytest's rootdir insertion), the tree root, and ``src``."""
    parent = PurePosixPath(path).parent
    found = [str(p) if str(p) != "." else "" for p in (parent, *parent.parents)]
    return [*dict.fromkeys([*found, "", "src"])]


def python_imports(path: str, text: bytes) -> list[ModuleRef]:
    """Each import statement's module (relative imports carry their root); nothing named in
    strings. Empty for a file that is not Python."""
    if not path.endswith(PY_SUFFIXES):
        return []
    found: list[ModuleRef] = []
    for match in _IMPORT.finditer(text):
        for item in match.group(1).decode("ascii", "replace").split(","):
            name = item.split(" as ")[0].strip().split()[0] if item.strip() else ""
            if _MODULE.fullmatch(name):
                found += [ModuleRef(root, name, True) for root in roots(path)]
    for match in _FROM.finditer(text):
        source = match.group(1).decode("ascii", "replace")
        names = match.group(2).decode("ascii", "replace").strip("() \t\r\n")
        level = len(source) - len(source.lstrip("."))
        module = source[level:]
        if level:
            folder = PurePosixPath(path).parent
            for _ in range(level - 1):
                folder = folder.parent
            where = [str(folder) if str(folder) != "." else ""]
        else:
            where = roots(path)
        for item in names.replace("\\", " ").replace("\n", " ").split(","):
            name = item.split(" as ")[0].strip()
            full = f"{module}.{name}" if module else name
            if name and _MODULE.fullmatch(full):
                found += [ModuleRef(root, full, True) for root in where]
        if module and _MODULE.fullmatch(module):
            found += [ModuleRef(root, module, True) for root in where]
    return found


def _named(path: str, text: bytes, modules: bool) -> list[Ref]:
    """What a string in the file names: a path (with a folder or a known suffix, as Node
    resolves it, or from the root with jest's ``<rootDir>``) or, in Python, a dotted module
    (pytest_plugins, import_module)."""
    folder = PurePosixPath(path).parent
    found: list[Ref] = []
    quoted = (_PY_STRING if modules else _JS_STRING).finditer(text)
    values = [(m.group(m.lastindex or 1), True) for m in quoted]
    values += [(m.group(0), False) for m in _PATH_TOKEN.finditer(text)]
    for raw, was_quoted in values:
        if not raw or len(raw) > MAX_STRING_CHARS:
            continue
        value = raw.decode("utf-8", "replace").strip()
        if modules and was_quoted and _MODULE.fullmatch(value):
            found += [ModuleRef(root, value) for root in roots(path)]
        if "/" not in value and not value.endswith(_SCANNED):
            continue
        value = value.replace("<rootDir>/", "/")
        bases = [PurePosixPath(value.lstrip("/"))]
        if not value.startswith("/"):
            bases.insert(0, folder / value)
        for base in bases:
            normal = os.path.normpath(str(base))
            if normal.startswith("..") or normal in (".", ""):
                continue
            for suffix in _JS_RESOLVE:
                for candidate in (normal + suffix, f"{normal}/index{suffix}" if suffix else ""):
                    if candidate:
                        found.append(PathRef(candidate))
    return found


def named_refs(path: str, text: bytes) -> list[Ref]:
    """What the strings of Python source name: dotted modules and tree paths (as a conftest's
    ``pytest_plugins`` names them)."""
    return _named(path, text, modules=True)


def references(path: str, text: bytes) -> list[Ref]:
    """What one harness file refers to, by its kind, in order."""
    if PurePosixPath(path).name == ENTRY_POINTS:
        # ``name = module:attr``: pytest imports the module as a plugin (pytest11)
        folder = str(PurePosixPath(path).parent.parent)
        found: list[Ref] = []
        for match in _ENTRY_POINT.finditer(_plugin_entries(text)):
            module = match.group(1).decode("ascii", "replace")
            for root in dict.fromkeys(("" if folder == "." else folder, "", "src")):
                found.append(ModuleRef(root, module))
        return found
    if path.endswith(PY_SUFFIXES):
        return [*python_imports(path, text), *_named(path, text, modules=True)]
    if path.endswith(_JS_SUFFIXES):
        return _named(path, text, modules=False)
    if path.endswith(".json"):
        return _named(path, _json_part(path, text), modules=False)
    plugins = [m.group(1).decode("ascii", "replace") for m in _PLUGIN_FLAG.finditer(text)]
    # toml/ini/cfg/yaml: pytest's -p plugins
    return [ModuleRef(root, name) for name in plugins for root in ("", "src")]


def _plugin_entries(text: bytes) -> bytes:
    """The lines of an ``entry_points.txt`` that pytest may load: its ``pytest11`` group.
    Read as importlib.metadata reads it (``str.splitlines``, a stripped line in brackets is a
    group, named by stripping the brackets) but loosely, to miss no spelling it loads: every
    group whose name holds pytest11 in any case, and the lines before the first group. A
    distribution's other groups (console scripts, its own extensions: Markdown's
    ``[markdown.extensions]``) load nothing into pytest. Text that is not UTF-8: all of it."""
    try:
        lines = text.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return text
    kept, loads = [], True
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            loads = "pytest11" in stripped.strip("[]").lower()
        elif loads:
            kept.append(line)
    return "\n".join(kept).encode()


def _json_part(path: str, text: bytes) -> bytes:
    """package.json's jest and vitest keys (its main, bin and name do not run the tests);
    any other JSON config whole. Unparsable JSON is scanned whole."""
    if PurePosixPath(path).name != "package.json":
        return text
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if not isinstance(data, dict):
        return text
    keys = [k for runner in all_runners() for k in runner.package_json_keys]  # jest, vitest
    return json.dumps([data.get(k) for k in keys], ensure_ascii=False).encode()
