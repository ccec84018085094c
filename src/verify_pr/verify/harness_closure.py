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

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from verify_pr.sandbox import tree_files
from verify_pr.verify import harness_hooks
from verify_pr.verify.harness import HARNESS_DIRS, is_harness_path
from verify_pr.verify.harness_refs import (
    PathRef,
    Ref,
    python_imports,
    references,
    roots,
    scannable,
)

MAX_WALK_ENTRIES = 500_000  # entries walked per tree (as the sandbox guard allows)
MAX_CLOSURE_FILES = 2_000  # files in the closure
MAX_SCAN_BYTES = 1 << 20  # bytes read of one file
MAX_NOTES = 8  # reasons naming single paths; the rest are counted
MAX_STAR_DEPTH = 4  # star imports followed from a module a harness file imports, for hooks


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
    try:
        for folder in tree_files.walk(tree, MAX_WALK_ENTRIES, lambda e: e.name not in HARNESS_DIRS):
            if not folder.entries and folder.rel:
                found.empty_dirs.append(folder.rel)
            for entry in folder.entries:
                if entry.is_link:
                    found.links[entry.rel] = os.readlink(entry.path)
                elif entry.is_dir:
                    found.dirs.add(entry.rel)
                elif entry.is_file:
                    found.files.add(entry.rel)
    except tree_files.TooManyEntries:
        return Walk(found.files, found.dirs, found.links, found.empty_dirs, True)
    return found


def resolve(walked: Walk, path: str) -> str | None:
    """Where ``path`` lands after following links inside the tree (None when it leaves the
    tree, loops or is too deep)."""
    landed = tree_files.resolve(path, walked.links.get)
    return landed[0] or None if landed else None


@dataclass
class _View:
    """Both trees at once: a path exists when it exists in either."""

    trees: Sequence[Path]
    walks: Sequence[Walk]
    product: tuple[str, ...] = ()  # folder prefixes of the tree's own packages ("pkg/")
    tested: frozenset[str] = frozenset()  # the files the test modules import

    hooked: dict[str, bool] = field(default_factory=dict)  # ``hooks`` answers, by path

    def is_product(self, path: str) -> bool:
        return path.startswith(self.product) or path in self.tested

    def hooks(self, path: str, depth: int = 0) -> bool:
        """Whether either tree's version of ``path`` defines pytest hooks, itself or through
        a module it star-imports (``harness_hooks``): product code imported for its hooks is
        harness where the hooks are."""
        if path not in self.hooked:
            self.hooked[path] = False  # a star-import cycle ends here
            texts, _cut = self.read(path)
            found = any(harness_hooks.defines_hooks(t) for t in texts)
            if not found and depth < MAX_STAR_DEPTH:
                found = any(
                    self.hooks(f, depth + 1)
                    for t in texts
                    for m in harness_hooks.star_imports(t)
                    for f in _star_files(self, path, m)
                )
            self.hooked[path] = found
        return self.hooked[path]

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
            read = tree_files.read_capped(tree / path, MAX_SCAN_BYTES)
            if read is not None:
                texts.append(read[0])
                cut = cut or read[1]
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


def _star_files(view: _View, path: str, module: str) -> list[str]:
    """The files ``from module import *`` in ``path`` runs (relative imports resolved)."""
    level = len(module) - len(module.lstrip("."))
    dotted = module[level:]
    if not level:
        return [f for root in roots(path) for f in _module_files(view, root, dotted)]
    folder = PurePosixPath(path).parent
    for _ in range(level - 1):
        folder = folder.parent
    where = "" if str(folder) == "." else str(folder)
    return _module_files(view, where, dotted) if dotted else []


def _files(view: _View, refs: Iterable[Ref], product: bool = True) -> list[str]:
    """The tree files the references reach, in order; an imported module of the product
    (``_View.is_product``) only when ``product``."""
    found: list[str] = []
    for ref in refs:
        if isinstance(ref, PathRef):
            if view.is_file(ref.path):
                found.append(ref.path)
            continue
        files = _module_files(view, ref.root, ref.dotted)
        keep = product or not ref.imported
        found += files if keep else [f for f in files if not view.is_product(f) or view.hooks(f)]
    return found


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
        if not scannable(path):
            continue
        texts, cut = view.read(path)
        if cut:
            result.capped.append(f"{path} is over {MAX_SCAN_BYTES} bytes and was scanned in part")
        reached: list[str] = []
        for text in texts:
            if imports_only:  # every module an import loads, the product's too
                reached += _files(view, python_imports(path, text))
            else:
                reached += _files(view, references(path, text), product=False)
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


def _test_module_plugins(
    view: _View, walks: Sequence[Walk], is_test: Callable[[str], bool], seeds: dict[str, str]
) -> dict[str, str]:
    """The modules the test modules' ``pytest_plugins`` name: pytest loads each as a plugin
    when it imports the test module, so each is harness wherever it is."""
    found: dict[str, str] = {}
    modules = sorted({p for w in walks for p in w.files if p.endswith(".py") and is_test(p)})
    for path in modules:
        texts, _cut = view.read(path)  # a cut file is named by the closure's own scan
        for text in texts:
            for target in _files(view, harness_hooks.plugin_refs(path, text)):
                if target not in seeds:
                    found.setdefault(target, f"the test module {path} names it in pytest_plugins")
    return found


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
    runner_paths: Mapping[str, str] | None = None,
) -> HarnessScan:
    """The harness paths the PR changes: by name, and through links, imports and renames
    (over both trees, so base's harness reaching head's file counts, and the reverse).
    ``is_test`` (base's test rule) names the test modules whose imports are product code;
    ``runner_paths`` is the harness the runner read from either tree (``Runner.harness_paths``:
    path -> why)."""
    from verify_pr.runners.pytest.tree import tree_packages

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
    if is_test is not None:
        seeds.update(_test_module_plugins(view, walks, is_test, seeds))
    for path, why in (runner_paths or {}).items():
        seeds.setdefault(path, why)
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
