"""pytest: JUnit XML in the xunit1 family (file + line), report path on the command line."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from verify_pr.contract import RunnerName
from verify_pr.models.report import ReportFormat, TestCase, TestReport
from verify_pr.reports._common import DEFAULT_TREE_ROOT, ReportSource
from verify_pr.reports.junit import JunitDialect, parse_junit
from verify_pr.runners import _files, config_code
from verify_pr.runners._scripts import runners_in_test_script
from verify_pr.runners.base import (
    Argv,
    Coverage,
    Detection,
    Evidence,
    ExpectedFailures,
    IsModule,
    PlannedCommand,
    RunnerDefaults,
    TestFiles,
    validate_report_path,
)
from verify_pr.runners.pytest import select as _select
from verify_pr.runners.pytest import tree as python_tree
from verify_pr.runners.pytest.command import (
    COLLECTED_MESSAGE,
    PYTEST_COLLECT_MAIN,
    PYTEST_MAIN,
    PYTHON,
    PYTHON_IMAGE_CACHES,
)
from verify_pr.runners.pytest.ini import addopts_words, ini_sources

# The files pytest reads its config from, and the conftest.py files it loads at any depth.
CONFIG_FILES = (
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
    "conftest.py",
)
_REQUIREMENTS = (
    "requirements.txt",
    "requirements-dev.txt",
    "requirements-test.txt",
    "test-requirements.txt",
    "dev-requirements.txt",
)
_PYTEST_REQ = re.compile(r"^\s*pytest(?:\s|[=<>!~\[;]|$)", re.MULTILINE)


class PytestRunner(RunnerDefaults):
    name = RunnerName.PYTEST
    report_format = ReportFormat.JUNIT
    test_files = TestFiles.PYTHON
    compares = True
    # the report says it itself (the bootstrap's property on each xfailed/xpassed testcase)
    expected_failures = ExpectedFailures.REPORT
    # A new test file that cannot import on base's code must not stop the others; Python's
    # own tracebacks for failures: pytest's default style parses each frame's source file
    # again (about 0.08 s of a core per failure in pyflakes' 2,300-line checker.py, and every
    # proof fails on before, whole run and each re-run), and the report's messages are the
    # same in either style. The same words on every compare run keep the runs alike.
    compare_args: Argv = ("--continue-on-collection-errors", "--tb=native")
    harness_names: tuple[str, ...] = CONFIG_FILES
    # a top-level module of these names shadows the installed runner under `python3 -m pytest`
    shadowed_modules: tuple[str, ...] = (
        "pytest.py",
        "pytest",
        "_pytest",
        "pluggy",
        "pluggy.py",
        "py.py",
        "iniconfig",
    )

    def __init__(self, tree_root: str = DEFAULT_TREE_ROOT) -> None:
        self.tree_root = tree_root

    def detect(self, tree: Path) -> Detection | None:
        script = runners_in_test_script(_files.package_json(tree)).get(self.name)
        if script is not None:
            return Detection(self.name, Evidence.SCRIPT, f"package.json scripts.{script}")
        for source, _options in ini_sources(tree):
            return Detection(self.name, Evidence.CONFIG, source)
        if _files.entry(tree, "conftest.py") is _files.Entry.FILE:
            return Detection(self.name, Evidence.CONFIG, "conftest.py")
        dependency = _dependency_source(tree)
        if dependency is not None:
            return Detection(self.name, Evidence.DEPENDENCY, dependency)
        found = _bare_test_file(tree)
        if found is not None:
            return Detection(self.name, Evidence.TEST_FILES, found)
        return None

    def command(self, report_path: str, python: str = PYTHON_IMAGE_CACHES) -> str:
        path = validate_report_path(report_path)
        # xunit1 adds file and line; -p no:cacheprovider keeps pytest from writing .pytest_cache
        return (
            f"{python} -c '{PYTEST_MAIN}' -p no:cacheprovider --junitxml={path} "
            "-o junit_family=xunit1"
        )

    def command_for(self, report_path: str, tree: Path) -> tuple[str, tuple[str, ...]]:
        """A src layout gets /work/src on the import path (as an editable install would);
        the probe reports, before the suite runs, where each of the tree's packages resolves."""
        layout = python_tree.src_layout(tree)
        # src/ is on the path from the start: the prefix too, from the start
        command = self.command(report_path, PYTHON if layout is not None else PYTHON_IMAGE_CACHES)
        env = f"PYTHONPATH={python_tree.SRC_PATH} " if layout is not None else ""
        # in a src layout, first what src/ could stand in for: read from the image's pytest
        first = (
            f"{python_tree.runner_modules_probe(PYTHON_IMAGE_CACHES)}; "
            if layout is not None
            else ""
        )
        packages = python_tree.tree_modules(tree)
        if not packages:
            return f"{first}{env}{command}", ()
        # the probe runs under the same flags and path (cwd first), so it sees what the tests do
        probe = python_tree.probe_command(packages, PYTHON)
        return f"{first}{env}{probe}; {env}{command}", tuple(packages)

    def plan(self, report_path: str, tree: Path) -> PlannedCommand:
        return PlannedCommand(*self.command_for(report_path, tree))

    def runtime_signals(self, tree: Path, output: bytes) -> list[str]:
        """A src layout's modules that stand in for the ones pytest loads at startup."""
        return python_tree.runtime_shadows(tree, python_tree.runner_modules(output))

    def select(self, case: TestCase, is_module: IsModule | None = None) -> Argv | None:
        return _select.select(case, is_module)

    def select_batch(self, cases: list[TestCase], is_module: IsModule | None = None) -> Argv | None:
        return _select.select_batch(cases, is_module)

    # select_repeated: cannot (pytest runs an id once, --keep-duplicates too)

    def collected_message(self) -> str | None:
        return COLLECTED_MESSAGE

    def coverage(self) -> Coverage:
        from verify_pr.runners.pytest.coverage import instrument

        return Coverage(instrument, (".py",))

    def collect_command(self, command: str) -> str | None:
        """``command`` (one of :meth:`command_for`'s) as a collection of every test it would
        run, named as the run names them; None when it is not one of ours."""
        ours = f"-c '{PYTEST_MAIN}'"
        if command.count(ours) != 1:
            return None
        return command.replace(ours, f"-c '{PYTEST_COLLECT_MAIN}'") + " --collect-only"

    def parse(self, report_bytes: ReportSource) -> TestReport:
        return parse_junit(report_bytes, dialect=JunitDialect.PYTEST, tree_root=self.tree_root)

    def tamper_signals(self, tree: Path) -> list[str]:
        signals: list[str] = []
        for source, options in ini_sources(tree):
            signals.extend(f"{source}: {s}" for s in _option_signals(options))
        for name in CONFIG_FILES:
            if _files.entry(tree, name) in (_files.Entry.SYMLINK, _files.Entry.OTHER):
                signals.append(f"{name} is a symlink or special file: not inspected")
        conftests, capped = _files.find_named(tree, "conftest.py")
        if conftests:
            listed = ", ".join(conftests[:5]) + (" ..." if len(conftests) > 5 or capped else "")
            signals.append(
                f"{len(conftests)} conftest.py file(s) ({listed}) run inside pytest and can "
                "rewrite results, the report or the exit code"
            )
        signals.extend(f.signal() for f in config_code.findings(tree, config_code.PYTEST))
        return signals


def _option_signals(options: dict[str, Any]) -> list[str]:
    signals: list[str] = []
    words = addopts_words(options)
    for index, word in enumerate(words):
        plugin = word[2:] if word.startswith("-p") and len(word) > 2 else None
        if word == "-p" and index + 1 < len(words):
            plugin = words[index + 1]
        if plugin is not None and plugin.strip() == "no:junitxml":
            signals.append(
                "addopts disables the junitxml plugin (-p no:junitxml): no report would be written"
            )
        elif plugin is not None and plugin.strip().startswith("no:"):
            signals.append(f"addopts disables plugin {plugin.strip()[3:][:80]!r}")
        # a plugin it loads is code: config_code reports it
    checks = (
        (("--junitxml", "--junit-xml"), "addopts sets --junitxml: the report can go elsewhere"),
        (
            ("--co", "--collect-only", "--collectonly"),
            "addopts collects tests without running them",
        ),
        (
            ("-k", "-m", "--deselect", "--ignore", "--ignore-glob"),
            "addopts filters which tests run",
        ),
        (
            ("-c", "--config-file", "--rootdir", "--confcutdir"),
            "addopts points pytest at another config or root",
        ),
        (("-x", "--exitfirst", "--maxfail", "--sw", "--stepwise"), "addopts stops the run early"),
    )
    for flags, message in checks:
        if any(_is_flag(word, flag) for word in words for flag in flags):
            signals.append(message)
    if any("junit_" in word for word in words):
        signals.append("addopts overrides junit_* options (-o) of the report")
    signals.extend(
        f"sets {key}, which changes the JUnit report"
        for key in sorted(options)
        if key.startswith("junit_")
    )
    return signals


def _is_flag(word: str, flag: str) -> bool:
    """``--flag``, ``--flag=v``; short flags also bundled (``-xvs``) or glued (``-kfoo``)."""
    if flag.startswith("--"):
        return word == flag or word.startswith(flag + "=")
    return word.startswith(flag) and not word.startswith("--")


def _dependency_source(tree: Path) -> str | None:
    pyproject = _files.read_toml(tree, "pyproject.toml") or {}
    project = _files.table(pyproject, "project") or {}
    groups: list[Any] = [project.get("dependencies")]
    groups.extend((_files.table(project, "optional-dependencies") or {}).values())
    groups.extend((_files.table(pyproject, "dependency-groups") or {}).values())
    for group in groups:
        if isinstance(group, list) and any(
            isinstance(d, str) and _PYTEST_REQ.match(d) for d in group
        ):
            return "pyproject.toml dependencies"
    for name in _REQUIREMENTS:
        text = _files.read_text(tree, name)
        if text is not None and _PYTEST_REQ.search(text):
            return name
    return None


_TEST_DIRS = ("", "tests", "test")


def _bare_test_file(tree: Path) -> str | None:
    """The first ``test_*.py`` or ``*_test.py`` (pytest's default names) at the top or in
    tests/ or test/: regular files in real directories only, links never followed."""
    for sub in _TEST_DIRS:
        base = tree / sub if sub else tree
        if sub and _files.entry(tree, sub) is not _files.Entry.DIRECTORY:
            continue
        try:
            with os.scandir(base) as entries:
                names = sorted(e.name for e in entries if e.is_file(follow_symlinks=False))
        except OSError:
            continue
        for name in names:
            if name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")):
                return f"{sub}/{name}" if sub else name
    return None
