"""Harness beyond names: links, imports, renames, and submodules the export leaves empty.

A file judges the PR when a harness file (matched by name, ``harness.is_harness_path``)
reaches it: a symlink resolving to a harness file, a module a harness file imports from the
tree (its import closure, followed transitively), a file a harness file names in a string
(pytest_plugins, jest setupFiles, ``require``), or the new name of a renamed harness file.
Everything here is a static, bounded read of our own fresh exports: no file is executed, no
link is followed out of its tree, and every cap that is reached is a reason (fail closed).

Product code is not harness: an ``import`` of the tree's own packages (``tree_packages``: the
code under test, at the top or under src/) or of a module the test modules import is not
followed, since that code runs inside the test process anyway (the documented residual), and
making it harness would put base's copy of the fixed module back under --strict-harness and
undo the fix. Harness is what the runner loads that no test imports. A module a harness file
names as a string (``pytest_plugins``, ``-p``, a setup file) is still harness wherever it is.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from verify_pr.verify.harness import ENTRY_POINTS, HARNESS_DIRS, is_harness_path

MAX_WALK_ENTRIES = 500_000  # entries walked per tree (as the sandbox guard allows)
MAX_CLOSURE_FILES = 2_000  # files in the closure
MAX_SCAN_BYTES = 1 << 20  # bytes read of one file
MAX_LINK_HOPS = 40
MAX_NOTES = 8  # reasons naming single paths; the rest are counted

_PY_SUFFIXES = (".py", ".pth")
_JS_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx")
_CONFIG_SUFFIXES = (".json", ".toml", ".ini", ".cfg", ".yaml", ".yml")
_ENTRY_POINT = re.compile(rb"(?m)^[^=\n#\[]+=[ \t]*([A-Za-z_][\w.]*)")
_SCANNED = (*_PY_SUFFIXES, *_JS_SUFFIXES, *_CONFIG_SUFFIXES, ENTRY_POINTS)
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


@dataclass(frozen=True)
class Walk:
    """One tree's regular files, links (path -> target) and empty folders."""

    files: set[str] = field(default_factory=set)
    dirs: set[str] = field(default_factory=set)
    links: dict[str, str] = field(default_factory=dict)
    empty_dirs: list[str] = field(default_factory=list)
    capped: bool = False


def walk(tree: Path) -> Walk:
    """Every entry of the tree by lstat; node_modules and the like are harness by name and
    not entered."""
    found = Walk()
    stack = [""]
    count = 0
    while stack:
        rel = stack.pop()
        try:
            entries = sorted(os.scandir(tree / rel) if rel else os.scandir(tree), key=_name)
        except OSError:
            continue
        if not entries and rel:
            found.empty_dirs.append(rel)
        for entry in entries:
            count += 1
            if count > MAX_WALK_ENTRIES:
                return Walk(found.files, found.dirs, found.links, found.empty_dirs, True)
            path = f"{rel}/{entry.name}" if rel else entry.name
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                found.links[path] = os.readlink(entry.path)
            elif stat.S_ISDIR(mode):
                found.dirs.add(path)
                if entry.name not in HARNESS_DIRS:
                    stack.append(path)
            elif stat.S_ISREG(mode):
                found.files.add(path)
    return found


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def resolve(walked: Walk, path: str) -> str | None:
    """Where ``path`` lands after following links inside the tree (None when it leaves the
    tree, loops or is too deep)."""
    parts = list(PurePosixPath(path).parts)
    done: list[str] = []
    hops = 0
    while parts:
        part = parts.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                return None
            done.pop()
            continue
        current = "/".join([*done, part])
        target = walked.links.get(current)
        if target is None:
            done.append(part)
            continue
        hops += 1
        if hops > MAX_LINK_HOPS or target.startswith("/"):
            return None
        parts = list(PurePosixPath(target).parts) + parts
    return "/".join(done) if done else None


@dataclass
class _View:
    """Both trees at once: a path exists when it exists in either."""

    trees: Sequence[Path]
    walks: Sequence[Walk]
    product: tuple[str, ...] = ()  # folder prefixes of the tree's own packages ("pkg/")
    tested: frozenset[str] = frozenset()  # the files the test modules import

    def is_product(self, path: str) -> bool:
        return path.startswith(self.product) or path in self.tested

    def is_file(self, path: str) -> bool:
        return any(path in w.files or path in w.links for w in self.walks)

    def is_dir(self, path: str) -> bool:
        return any(path in w.dirs for w in self.walks)

    def read(self, path: str) -> tuple[list[bytes], bool]:
        """Each tree's version of a regular file (capped); True when one was cut."""
        texts, cut = [], False
        for tree, walked in zip(self.trees, self.walks, strict=True):
            if path not in walked.files:
                continue
            try:
                fd = os.open(tree / path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(MAX_SCAN_BYTES + 1)
            cut = cut or len(data) > MAX_SCAN_BYTES
            texts.append(data[:MAX_SCAN_BYTES])
        return texts, cut


def _module_files(view: _View, root: str, dotted: str) -> list[str]:
    """The files ``import dotted`` runs from ``root``: each package's __init__ and the module."""
    found: list[str] = []
    current = root
    for part in dotted.split("."):
        current = f"{current}/{part}" if current else part
        if view.is_file(current + ".py"):
            return [*found, current + ".py"]
        init = current + "/__init__.py"
        if view.is_file(init):
            found.append(init)
        elif not view.is_dir(current):
            return []  # not in the tree (an installed module): nothing more to follow
    return found


def _roots(path: str) -> list[str]:
    """Where Python may find a top-level module for ``path``: its folder and each above it
    (pytest's rootdir insertion), the tree root, and ``src``."""
    parent = PurePosixPath(path).parent
    roots = [str(p) if str(p) != "." else "" for p in (parent, *parent.parents)]
    return [*dict.fromkeys([*roots, "", "src"])]


def _python_imports(path: str, text: bytes) -> list[tuple[str, str]]:
    """(root, dotted name) for each import statement; relative imports carry their root."""
    found: list[tuple[str, str]] = []
    for match in _IMPORT.finditer(text):
        for item in match.group(1).decode("ascii", "replace").split(","):
            name = item.split(" as ")[0].strip().split()[0] if item.strip() else ""
            if _MODULE.fullmatch(name):
                found += [(root, name) for root in _roots(path)]
    for match in _FROM.finditer(text):
        source = match.group(1).decode("ascii", "replace")
        names = match.group(2).decode("ascii", "replace").strip("() \t\r\n")
        level = len(source) - len(source.lstrip("."))
        module = source[level:]
        if level:
            folder = PurePosixPath(path).parent
            for _ in range(level - 1):
                folder = folder.parent
            roots = [str(folder) if str(folder) != "." else ""]
        else:
            roots = _roots(path)
        for item in names.replace("\\", " ").replace("\n", " ").split(","):
            name = item.split(" as ")[0].strip()
            full = f"{module}.{name}" if module else name
            if name and _MODULE.fullmatch(full):
                found += [(root, full) for root in roots]
        if module and _MODULE.fullmatch(module):
            found += [(root, module) for root in roots]
    return found


def _string_targets(view: _View, path: str, text: bytes, modules: bool) -> list[str]:
    """Tree files a string in the file names: a path (with a folder or a known suffix, as
    Node resolves it, or from the root with jest's ``<rootDir>``) or, in Python, a dotted
    module (pytest_plugins, import_module)."""
    folder = PurePosixPath(path).parent
    found: list[str] = []
    quoted = (_PY_STRING if modules else _JS_STRING).finditer(text)
    values = [(m.group(m.lastindex or 1), True) for m in quoted]
    values += [(m.group(0), False) for m in _PATH_TOKEN.finditer(text)]
    for raw, was_quoted in values:
        if not raw or len(raw) > MAX_STRING_CHARS:
            continue
        value = raw.decode("utf-8", "replace").strip()
        if modules and was_quoted and _MODULE.fullmatch(value):
            for root in _roots(path):
                found += _module_files(view, root, value)
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
                    if candidate and view.is_file(candidate):
                        found.append(candidate)
    return found


def _targets(view: _View, path: str, text: bytes) -> list[str]:
    """The tree files one harness file reaches, by its kind."""
    found: list[str] = []
    if PurePosixPath(path).name == ENTRY_POINTS:
        # ``name = module:attr``: pytest imports the module as a plugin (pytest11)
        folder = str(PurePosixPath(path).parent.parent)
        for match in _ENTRY_POINT.finditer(text):
            module = match.group(1).decode("ascii", "replace")
            for root in dict.fromkeys(("" if folder == "." else folder, "", "src")):
                found += _module_files(view, root, module)
        return found
    if path.endswith(_PY_SUFFIXES):
        for root, name in _python_imports(path, text):
            found += [f for f in _module_files(view, root, name) if not view.is_product(f)]
        return found + _string_targets(view, path, text, modules=True)
    if path.endswith(_JS_SUFFIXES):
        return _string_targets(view, path, text, modules=False)
    if path.endswith(".json"):
        return _string_targets(view, path, _json_part(path, text), modules=False)
    for match in _PLUGIN_FLAG.finditer(text):  # toml/ini/cfg/yaml: pytest's -p plugins
        for root in ("", "src"):
            found += _module_files(view, root, match.group(1).decode("ascii", "replace"))
    return found


def _imported(view: _View, path: str, text: bytes) -> list[str]:
    """The tree files a Python file's import statements load (nothing named in strings)."""
    if not path.endswith(_PY_SUFFIXES):
        return []
    return [
        f for root, name in _python_imports(path, text) for f in _module_files(view, root, name)
    ]


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
    return json.dumps([data.get("jest"), data.get("vitest")], ensure_ascii=False).encode()


def _scannable(path: str) -> bool:
    name = PurePosixPath(path).name
    return name.endswith(_SCANNED) and name not in _NOT_SCANNED


@dataclass
class Closure:
    """Each file reached from the seeds, with why; ``capped`` names a cap that was reached."""

    why: dict[str, str] = field(default_factory=dict)
    capped: list[str] = field(default_factory=list)


def closure(view: _View, seeds: dict[str, str], imports_only: bool = False) -> Closure:
    """Every tree file the seeds import or name, transitively (a static scan; each file is
    read at most once, so a cycle ends)."""
    result = Closure(dict(seeds))
    queue = list(seeds)
    while queue:
        path = queue.pop(0)
        if not _scannable(path):
            continue
        texts, cut = view.read(path)
        if cut:
            result.capped.append(f"{path} is over {MAX_SCAN_BYTES} bytes and was scanned in part")
        reached: list[str] = []
        for text in texts:
            if imports_only:
                reached += _imported(view, path, text)
            else:
                reached += _targets(view, path, text)
        for target in reached:
            for walked in view.walks:
                landed = resolve(walked, target)
                if landed and landed != target and view.is_file(landed):
                    reached.append(landed)
            if target in result.why or target == path:
                continue
            if len(result.why) >= MAX_CLOSURE_FILES:
                result.capped.append(f"the import closure is over {MAX_CLOSURE_FILES} files")
                return result
            result.why[target] = f"{path} imports or names it"
            queue.append(target)
    return result


def _tested(view: _View, is_test: Callable[[str], bool] | None) -> frozenset[str]:
    """The tree files the test modules import (transitively; no cap is a reason here, since
    a cap only leaves more files harness)."""
    if is_test is None:
        return frozenset()
    modules = {
        path: "a test module"
        for walked in view.walks
        for path in walked.files
        if path.endswith(".py") and is_test(path) and PurePosixPath(path).name != "conftest.py"
    }
    return frozenset(closure(view, modules, imports_only=True).why) - set(modules)


@dataclass(frozen=True)
class HarnessScan:
    """What the PR changes that judges it, and why beyond a file's name."""

    paths: tuple[str, ...] = ()  # every harness path the PR changes, sorted
    notes: tuple[str, ...] = ()  # why each path beyond its name is harness
    empty_submodules: tuple[str, ...] = ()
    capped: tuple[str, ...] = ()

    def reasons(self, strict_harness: bool) -> list[str]:
        """Reasons for the verdict: the notes unless base's versions ran (strict), the empty
        submodules and the caps always."""
        found = [] if strict_harness else list(self.notes[:MAX_NOTES])
        if not strict_harness and len(self.notes) > MAX_NOTES:
            found.append(
                f"{len(self.notes) - MAX_NOTES} more changed file(s) are harness through "
                "links, imports or renames"
            )
        if self.empty_submodules:
            shown = ", ".join(self.empty_submodules[:5])
            found.append(
                f"{len(self.empty_submodules)} submodule(s) (gitlink) the export leaves empty "
                f"({shown}): their content is not part of what ran"
            )
        found += [f"the harness scan stopped: {why}" for why in self.capped[:3]]
        return found


def scan(
    base: Path,
    after: Path,
    changed: Sequence[str],
    renames: Iterable[tuple[str, str]] = (),
    is_test: Callable[[str], bool] | None = None,
) -> HarnessScan:
    """The harness paths the PR changes: by name, and through links, imports and renames
    (over both trees, so base's harness reaching head's file counts, and the reverse).
    ``is_test`` (base's test rule) names the test modules whose imports are product code."""
    from verify_pr.runners.python_tree import tree_packages

    walks = [walk(base), walk(after)]
    packages = sorted({*tree_packages(base), *tree_packages(after)})
    prefixes = tuple(p for n in packages for p in (f"{n}/", f"src/{n}/"))
    view = _View([base, after], walks, prefixes, _tested(_View([base, after], walks), is_test))
    capped = [f"a tree has over {MAX_WALK_ENTRIES} entries" for w in walks if w.capped]
    renames = list(renames)
    seeds: dict[str, str] = {}
    for walked in walks:
        for path in sorted(walked.files | set(walked.links)):
            if is_harness_path(path):
                seeds.setdefault(path, "harness by name")
        for path in walked.links:
            landed = resolve(walked, path)
            if is_harness_path(path) and landed and landed not in seeds:
                seeds[landed] = f"the harness file {path} links to it"
    found = Closure()
    for _ in range(4):  # a rename adds a seed, which may reach another rename
        found = closure(view, seeds)
        added = {
            new: f"renamed from {old}, which judges the PR"
            for old, new in renames
            if (old in found.why or is_harness_path(old)) and new not in found.why
        }
        if not added:
            break
        seeds.update(added)
    harness = dict(found.why)
    for walked in walks:
        for path in walked.links:
            landed = resolve(walked, path)
            if landed is None or path in harness:
                continue
            if landed in harness or is_harness_path(landed):
                harness[path] = f"a symlink to {landed}, which judges the PR"
            elif any(h.startswith(landed + "/") for h in harness):
                harness[path] = f"a symlink to the folder {landed}, which holds harness files"
    paths = sorted({p for p in changed if p in harness or is_harness_path(p)})
    notes = tuple(
        f"{p} judges the PR ({harness[p]}): a harness file"
        for p in paths
        if not is_harness_path(p) and p in harness
    )
    empty = sorted({d for w in walks for d in w.empty_dirs})
    return HarnessScan(tuple(paths), notes, tuple(empty), tuple(capped + found.capped))
