"""Configuration in a tree that makes the runner execute the tree's own code.

Each finding is a reason on the verdict (through the runner's tamper signals) and, for
``compare``, a harness path (``verify.harness.closure``).
Everything is read as data and nothing is executed. A JS config is code whatever keys it
names (a key can be computed at run time), so the file itself is a finding, as for vitest;
the keys found by name and the tree files it names are extra detail.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from verify_pr.contract import WORK_DIR, RunnerName
from verify_pr.runners import _files
from verify_pr.runners.pytest.ini import addopts_words, ini_sources
from verify_pr.runners.vitest.configs import VITE_CONFIGS, VITEST_CONFIGS

PYTEST, JEST, VITEST, BUN = (
    RunnerName.PYTEST,
    RunnerName.JEST,
    RunnerName.VITEST,
    RunnerName.BUN,
)
NODE_RUNNERS = (JEST, VITEST, BUN)
# A finding that swaps the runner's own code for the tree's (a node_modules the runner loads
# its packages from, compiled modules without a source): its signal starts with this, and the
# verdict rules never give PASS beside it (``verify.rules``).
REPLACES_RUNNER = "the tree replaces part of the runner: "
# Python source read while looking for pytest_plugins: beyond this the scan stops, and says so
# (fail closed); one file over MAX_MODULE_BYTES is not read, and is named.
MAX_SCAN_BYTES = 256 * 1024 * 1024
MAX_MODULE_BYTES = 16 * 1024 * 1024

_JS_EXTS = ("js", "ts", "mjs", "cjs", "mts", "cts")
JEST_JS_CONFIGS = tuple(f"jest.config.{e}" for e in _JS_EXTS)
JEST_JSON_CONFIG = "jest.config.json"
BABEL_NAMES = frozenset(
    [f"babel.config.{e}" for e in (*_JS_EXTS, "json")]
    + [".babelrc"]
    + [f".babelrc.{e}" for e in ("js", "cjs", "mjs", "cts", "json")]
)
# jest keys whose value is code jest loads and runs (or that decide which code runs).
JEST_CODE_KEYS = {
    "setupFiles": "runs these files before every test file",
    "setupFilesAfterEnv": "runs these files before every test file, inside the framework",
    "testEnvironment": "loads a custom test environment, which runs around every test",
    "transform": "transforms every test file with this code",
    "preset": "loads a preset (its jest-preset file is code and brings its own keys)",
    "globalSetup": "runs code before all tests, outside the test sandbox",
    "globalTeardown": "runs code after all tests, when the report is being written",
    "reporters": "adds reporters, which run code and can write files",
    "testResultsProcessor": "runs a processor that can rewrite the results",
    "testRunner": "replaces the test runner",
    "runner": "replaces the test runner",
    "watchPlugins": "loads watch plugins",
    "snapshotResolver": "loads a snapshot resolver (code)",
    "snapshotSerializers": "loads snapshot serializers (code)",
    "testSequencer": "loads a test sequencer (code that picks the tests)",
    "resolver": "loads a module resolver (code that decides what every import loads)",
    "dependencyExtractor": "loads a dependency extractor (code)",
    "projects": "runs several projects, each with its own configuration",
    "moduleNameMapper": "maps imports to the tree's own files",
    "moduleDirectories": "resolves packages from other directories (the tree's own)",
    "modulePaths": "resolves packages from other directories (the tree's own)",
    "haste": "can load a haste implementation (code)",
}
_BUILTIN_ENVIRONMENTS = frozenset({"node", "jsdom"})
_JEST_KEY_WORD = re.compile(r"\b(" + "|".join(JEST_CODE_KEYS) + r")\b")
_TREE_REF = re.compile(r"""["'`](?:<rootDir>/|\./)([^"'`\s]{1,300})["'`]""")
_PYTEST_PLUGINS = re.compile(rb"\bpytest_plugins\b")
# Names a Python module in the tree can take to stand in for one pytest imports later.
_RUNNER_MODULES = frozenset(
    {"pytest", "_pytest", "pluggy", "py", "iniconfig", "packaging", "pygments", "exceptiongroup"}
)
_NOT_SHADOWS = frozenset({"test", "tests", "__main__", "this", "antigravity"})


@dataclass(frozen=True)
class Finding:
    path: str  # repo-relative file or directory: a harness path for compare
    why: str
    runners: tuple[str, ...]
    where: str = ""  # how to name it in a reason, when not the bare path
    replaces_runner: bool = False  # the runner's own code comes from the tree

    def signal(self) -> str:
        prefix = REPLACES_RUNNER if self.replaces_runner else ""
        return f"{prefix}{self.where or self.path}: {self.why}"


def findings(tree: Path, runner: str | None = None) -> list[Finding]:
    """Every finding in ``tree`` (only those that concern ``runner`` when given)."""
    found: list[Finding] = []
    dirs, files, capped = _files.walk(tree)
    if runner in (None, PYTEST):
        found += _pytest(tree, files)
    if runner in (None, JEST):
        found += _jest(tree, files)
    if runner in (None, *NODE_RUNNERS):
        found += _node_modules(tree, dirs, runner)
    if runner in (None, VITEST):
        found += _vitest_refs(tree)
    if runner in (None, BUN):
        found += _bun_refs(tree)
    if capped:
        # fail closed: what the scan did not reach could be any of the above
        why = "the tree is too big to scan for config that runs code: not all inspected"
        found.append(Finding(".", why, ("all",), replaces_runner=True))
    unique = {(f.path, f.why): f for f in found if runner is None or _concerns(f, runner)}
    return list(unique.values())


def _concerns(finding: Finding, runner: str) -> bool:
    return runner in finding.runners or "all" in finding.runners


# --- pytest --------------------------------------------------------------------------------


def _pytest(tree: Path, files: list[str]) -> list[Finding]:
    found: list[Finding] = []
    for source, options in ini_sources(tree):
        path = source.split(" ", 1)[0]
        for key in ("python_files", "python_classes", "python_functions"):
            if key in options:
                why = f"sets {key}: changes which files, classes or functions run as tests"
                found.append(Finding(path, why, (PYTEST,), source))
        if "pythonpath" in options:
            why = "sets pythonpath: tree directories go first on sys.path and can shadow modules"
            found.append(Finding(path, why, (PYTEST,), source))
        words = addopts_words(options)
        for plugin in _plugins(words):
            why = f"addopts loads plugin {plugin[:80]!r}, which can change results"
            found.append(Finding(path, why, (PYTEST,), source))
        if _imports_warning_class(options.get("filterwarnings"), words):
            why = "names a warning class by module: pytest imports that module at startup"
            found.append(Finding(path, why, (PYTEST,), source))
    found += _pytest_plugins_in_modules(tree, files)
    for path in files:
        name = PurePosixPath(path).name
        compiled = name.endswith((".so", ".pyd")) or (
            name.endswith(".pyc") and "__pycache__" not in PurePosixPath(path).parts
        )
        if compiled:
            why = "compiled Python module: it runs without (or instead of) a readable source"
            found.append(Finding(path, why, (PYTEST,), replaces_runner=True))
    found += _module_shadows(tree)
    return found


def _plugins(words: list[str]) -> list[str]:
    """Plugins that ``-p NAME`` / ``-pNAME`` load (``no:`` only disables one)."""
    names: list[str] = []
    for index, word in enumerate(words):
        plugin = word[2:] if word.startswith("-p") and len(word) > 2 else None
        if word == "-p" and index + 1 < len(words):
            plugin = words[index + 1]
        if plugin is not None and not plugin.strip().startswith("no:"):
            names.append(plugin.strip())
    return names


def _imports_warning_class(filterwarnings: Any, words: list[str]) -> bool:  # noqa: ANN401
    """A filter whose category is ``module.Class`` makes pytest import that module."""
    lines: list[str] = []
    if isinstance(filterwarnings, str):
        lines = filterwarnings.splitlines()
    elif isinstance(filterwarnings, list):
        lines = [w for w in filterwarnings if isinstance(w, str)]
    for index, word in enumerate(words):
        if word == "-W" and index + 1 < len(words):
            lines.append(words[index + 1])
        elif word.startswith("-W") and len(word) > 2:
            lines.append(word[2:])
    return any("." in [*line.split(":"), "", "", ""][2] for line in lines)


def _pytest_plugins_in_modules(tree: Path, files: list[str]) -> list[Finding]:
    found: list[Finding] = []
    budget = MAX_SCAN_BYTES
    for path in files:
        if not path.endswith(".py") or PurePosixPath(path).name == "conftest.py":
            continue  # conftest.py files are reported on their own
        data = _files.read_nested_bytes(tree, path, MAX_MODULE_BYTES)
        if data is None:  # a link (its target is scanned itself), or too big
            if (tree / path).is_file() and not (tree / path).is_symlink():
                why = "a Python file too big to scan for pytest_plugins: not inspected"
                found.append(Finding(path, why, (PYTEST,)))
            continue
        budget -= len(data)
        if budget < 0:
            why = "too much Python source to scan for pytest_plugins: not all inspected"
            return [*found, Finding(".", why, (PYTEST,), replaces_runner=True)]
        if _PYTEST_PLUGINS.search(data):  # bytes: any source encoding spells it in ASCII
            why = "names pytest_plugins: pytest loads those plugins, which run inside it"
            found.append(Finding(path, why, (PYTEST,)))
    return found


def _module_shadows(tree: Path) -> list[Finding]:
    """A top-level module named like one of pytest's or the standard library's: pytest puts
    the rootdir first on sys.path (its import mode), so a later import of that name loads it.
    In a src layout, ``/work/src`` is on PYTHONPATH from the interpreter's start (ahead of the
    image's packages), so a module there named so is the one the runner itself loads: named on
    the verdict (not a bar to PASS: a src-layout project such as pluggy tests itself so)."""
    from verify_pr.runners.pytest.tree import src_layout

    names = (set(sys.stdlib_module_names) | _RUNNER_MODULES) - _NOT_SHADOWS
    # src_layout only names a real directory (lstat), never a link to one
    bases = [(tree, "", False)]
    if src_layout(tree) is not None:
        bases.append((tree / "src", "src/", True))
    found: list[Finding] = []
    for base, prefix, in_src in bases:
        for name in sorted(names):
            for candidate, kind in (
                (f"{name}.py", _files.Entry.FILE),
                (name, _files.Entry.DIRECTORY),
            ):
                if _files.entry(base, candidate) is not kind:
                    continue
                if kind is _files.Entry.DIRECTORY and not (base / name / "__init__.py").is_file():
                    continue
                found.append(_shadow(prefix + candidate, in_src))
    return found


def _shadow(candidate: str, in_src: bool) -> Finding:
    if in_src:
        why = (
            "named like a module pytest or Python provides, in the src layout put on the import "
            "path at startup: the runner imports the tree's copy in place of its own"
        )
        return Finding(candidate, why, (PYTEST,), f"src-layout {candidate}")
    why = (
        "named like a module pytest or Python provides: once pytest puts the rootdir "
        "on sys.path, a later import of that name loads the tree's copy"
    )
    return Finding(candidate, why, (PYTEST,), f"top-level {candidate}")


# --- jest ----------------------------------------------------------------------------------


def _jest(tree: Path, files: list[str]) -> list[Finding]:
    found: list[Finding] = []
    for name in JEST_JS_CONFIGS:
        if _files.entry(tree, name) is _files.Entry.ABSENT:
            continue
        why = "a JS config is code: jest runs it in its own process (keys can be computed)"
        found.append(Finding(name, why, (JEST,)))
        text = _files.read_text(tree, name) or ""
        for key in sorted(set(_JEST_KEY_WORD.findall(text))):
            found.append(Finding(name, f"{key} {JEST_CODE_KEYS[key]}", (JEST,)))
        found += _referenced(tree, _TREE_REF.findall(text), name, (JEST,))
    pkg = _files.package_json(tree)
    sources = [("package.json", 'package.json "jest"', pkg.get("jest"))]
    if _files.entry(tree, JEST_JSON_CONFIG) is _files.Entry.FILE:
        config = _files.read_json_object(tree, JEST_JSON_CONFIG)
        sources.append((JEST_JSON_CONFIG, JEST_JSON_CONFIG, config))
    for path, where, config in sources:
        if isinstance(config, dict):
            found += _jest_json_keys(tree, path, where, config)
    if "babel" in pkg:
        why = "a babel key: babel-jest transforms the tests with it (its plugins run as code)"
        found.append(Finding("package.json", why, (JEST,), 'package.json "babel"'))
    for path in files:
        if PurePosixPath(path).name in BABEL_NAMES:
            why = "babel config: babel-jest transforms the tests with it (its plugins run as code)"
            found.append(Finding(path, why, (JEST,)))
    if _files.entry(tree, "__mocks__") is _files.Entry.DIRECTORY:
        why = "a root __mocks__: jest loads these in place of the packages they are named after"
        found.append(Finding("__mocks__", why, (JEST,)))
    return found


def _jest_json_keys(tree: Path, path: str, where: str, config: dict[str, Any]) -> list[Finding]:
    found: list[Finding] = []
    for key, message in JEST_CODE_KEYS.items():
        if key not in config:
            continue
        value = config[key]
        if key == "testEnvironment" and value in _BUILTIN_ENVIRONMENTS:
            continue
        if key == "moduleDirectories" and value == ["node_modules"]:
            continue  # the default
        refs = _strings(value if key != "moduleNameMapper" else _mapper_targets(value))
        if key == "moduleNameMapper" and not any(_is_tree_path(r) for r in refs):
            continue  # mapped to packages, not into the tree
        found.append(Finding(path, f"{key} {message}", (JEST,), where))
        found += _referenced(tree, [_tree_relative(r) for r in refs if _is_tree_path(r)], where)
    return found


def _mapper_targets(value: Any) -> list[Any]:  # noqa: ANN401
    return list(value.values()) if isinstance(value, dict) else [value]


def _strings(value: Any, depth: int = 0) -> list[str]:  # noqa: ANN401
    if isinstance(value, str):
        return [value]
    if depth > 8:
        return []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for item in items for s in _strings(item, depth + 1)]


def _is_tree_path(ref: str) -> bool:
    return ref.startswith(("<rootDir>", "./", "../", f"{WORK_DIR}/"))


def _tree_relative(ref: str) -> str:
    for prefix in ("<rootDir>/", f"{WORK_DIR}/", "./"):
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


def _referenced(
    tree: Path, refs: list[str], where: str, runners: tuple[str, ...] = (JEST,)
) -> list[Finding]:
    """The tree files a config names (they run as that config says): harness too."""
    found: list[Finding] = []
    for ref in refs:
        path = _existing(tree, ref)
        if path is not None:
            found.append(Finding(path, f"named by {where}: runs inside the runner", runners))
    return found


def _existing(tree: Path, ref: str) -> str | None:
    """``ref`` as a normalised repo-relative path, if it is a file or directory in the tree."""
    parts = [p for p in PurePosixPath(ref).parts if p not in ("", ".")]
    if not parts or ".." in parts or parts[0] == "/":
        return None
    candidate = tree.joinpath(*parts)
    try:
        if candidate.is_symlink() or not (candidate.is_file() or candidate.is_dir()):
            return None
    except OSError:
        return None
    return "/".join(parts)


# --- node runners --------------------------------------------------------------------------


def _node_modules(tree: Path, dirs: list[str], runner: str | None) -> list[Finding]:
    found: list[Finding] = []
    for path in dirs:
        if PurePosixPath(path).name != "node_modules":
            continue
        why = (
            "a node_modules in the tree: the runner resolves packages here before the image's "
            "(environments, transformers, plugins), so their code runs"
        )
        found.append(Finding(path, why, NODE_RUNNERS, replaces_runner=True))
    for name in (".node_modules", ".node_libraries"):
        if _files.entry(tree, name) is not _files.Entry.ABSENT:
            # HOME=/work: Node's global folders, where require() looks when all else fails
            why = "Node's global module folder under HOME=/work: require() falls back to it"
            found.append(Finding(name, why, NODE_RUNNERS, replaces_runner=True))
    for name in ("jest", "jest-cli"):
        path = f"node_modules/{name}"
        if (tree / "node_modules").is_dir() and _existing(tree, path) is not None:
            why = "the image's jest hands the whole run over to this copy (import-local)"
            found.append(Finding(path, why, (JEST,), replaces_runner=True))
    return found


def _vitest_configs() -> tuple[str, ...]:
    return VITEST_CONFIGS + VITE_CONFIGS


def _vitest_refs(tree: Path) -> list[Finding]:
    """Files a vitest config names (setupFiles, globalSetup...): its own signal says the
    config is code; these are listed so they count as harness."""
    found: list[Finding] = []
    for name in _vitest_configs():
        text = _files.read_text(tree, name)
        if text is not None:
            found += _referenced(tree, _TREE_REF.findall(text), name, (VITEST,))
    return found


def _bun_refs(tree: Path) -> list[Finding]:
    config = _files.read_toml(tree, "bunfig.toml") or {}
    test = _files.table(config, "test") or {}
    refs: list[str] = []
    for value in (config.get("preload"), test.get("preload")):
        refs += [_tree_relative(r) for r in _strings(value)]
    return _referenced(tree, refs, "bunfig.toml preload", (BUN,))
