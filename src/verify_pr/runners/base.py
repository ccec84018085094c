"""The Runner protocol, detection evidence, and the report-path rule shared by all runners.

A runner is one object that answers everything verify-pr needs to know about it; ``verify/``
asks these questions and never compares runner names (tests/unit/test_runner_names.py).
"Cannot" is a legal answer: a method returns None (no selection by id, no collection, no
coverage tracer) or a flag says so (bun's report carries no expected failure). ``RunnerDefaults``
holds every such "cannot", so a new runner starts from the safe answers and says what it can.

What a runner must implement itself (no default): ``name``, ``report_format``, ``test_files``,
``detect``, ``command``, ``parse``, ``tamper_signals``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from verify_pr.contract import RunnerName, check_report_path
from verify_pr.models.report import ReportFormat, TestCase, TestReport
from verify_pr.reports._common import ReportSource

# Whether a repo-relative path ("a/b.py") is a module of the trees a test runs on.
IsModule = Callable[[str], bool]
# (command, changed files, coverage data path) -> the command under the tracer, or None.
Instrument = Callable[[str, list[str], str], "str | None"]
# A selection: argv words the runner's command takes after its own (never a shell string).
Argv = tuple[str, ...]

# Added to a collection's message (``Runner.collected_message``) on a test marked to be skipped
# or to fail: base's own run starts it early, as it most likely will not pass on either side
# (``verify.pairing.base_own``). A guess that may only make the run wider, never the verdict
# kinder.
COLLECTED_MARKED = " (marked to be skipped or to fail)"


class Evidence(StrEnum):
    """Why a runner was detected, strongest first (NOTES §3 order)."""

    SCRIPT = "package.json scripts.test"
    CONFIG = "config file"
    DEPENDENCY = "dependency"
    TEST_FILES = "test files"  # a bare pytest repo: test_*.py files and nothing else

    @property
    def rank(self) -> int:
        return list(Evidence).index(self)


class TestFiles(StrEnum):
    """The family of the static test/code rule (``verify.split.testpaths``) a runner's tree gets."""

    __test__ = False  # not a pytest test class
    PYTHON = "python"  # python_files/testpaths of the tree's pytest config, test folders
    JAVASCRIPT = "javascript"  # *.test.*, *.spec.*, __tests__ and the like
    GO = "go"  # *_test.go (what go list names TestGoFiles/XTestGoFiles), testdata/ is data


class ExpectedFailures(StrEnum):
    """Where an expected failure (xfail, ``test.failing``, ``test.fails``) is learnt from."""

    REPORT = "the report"  # the runner's own report marks each (pytest, through our bootstrap)
    RECORDER = "our recorder"  # our recorder of the runner's state, and the declaring lines
    CANNOT = "cannot"  # nothing the runner exposes: only the lines, read failed closed (bun)
    NONE = "none"  # the runner has no such marker: a failure is a failure (go test)


@dataclass(frozen=True)
class Detection:
    runner: RunnerName
    evidence: Evidence
    source: str  # what a maintainer can look at, e.g. "pytest.ini"


@dataclass(frozen=True)
class PlannedCommand:
    """The suite's command for a tree, and the tree's packages its import probe reports on."""

    command: str
    probed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Coverage:
    """Line coverage of the changed code: the tracer and the suffixes it measures, or why not
    (``instrument`` None: "cannot")."""

    instrument: Instrument | None
    suffixes: tuple[str, ...] = ()
    missing: str = ""  # why not measured, when there is no tracer
    # the runner may run the suite again without the tracer (no data: unknown, not refused)
    may_drop: bool = False


class Runner(Protocol):
    """One test runner. Every method is pure apart from reading files in ``tree``."""

    name: RunnerName
    report_format: ReportFormat
    test_files: TestFiles  # the static test/code rule's family
    expected_failures: ExpectedFailures
    # compare can judge this runner's suites (selection, harness and re-runs are wired)
    compares: bool
    # a test file the runner runs is a test file: it never runs tests from code files
    # (no doctests, no in-source tests), so a code file a report places tests in moved sides
    tests_only_in_test_files: bool
    # one process runs many test files each apart (own module registry and environment), so
    # the proof's files may re-run together
    isolates_files: bool
    compare_args: Argv  # argv every compare run adds to the command (the same on each side)
    # harness: file-name globs (any depth) the runner reads as its config or setup, top-level
    # module names that stand in for the runner's own, package.json keys it reads config from
    harness_names: tuple[str, ...]
    shadowed_modules: tuple[str, ...]
    package_json_keys: tuple[str, ...]

    def detect(self, tree: Path) -> Detection | None:
        """Strongest evidence that ``tree`` uses this runner; reads files, executes nothing."""
        ...

    def command(self, report_path: str) -> str:
        """The exact shell command that runs the suite and writes the report there."""
        ...

    def plan(self, report_path: str, tree: Path) -> PlannedCommand:
        """The command for ``tree`` (a src layout, an import probe of the tree's packages)."""
        ...

    def parse(self, report_bytes: ReportSource) -> TestReport:
        """Strictly parse the report; ReportError on anything we cannot vouch for."""
        ...

    def tamper_signals(self, tree: Path) -> list[str]:
        """Repo config that can redirect, disable or fake the report or the exit code."""
        ...

    def runtime_signals(self, tree: Path, output: bytes) -> list[str]:
        """What a run's output (of :meth:`plan`'s command) says the tree stood in for."""
        ...

    def select(self, case: TestCase, is_module: IsModule | None = None) -> Argv | None:
        """Argv that runs only ``case``; None: cannot."""
        ...

    def select_batch(self, cases: list[TestCase], is_module: IsModule | None = None) -> Argv | None:
        """Argv that runs exactly ``cases`` in one process; None: cannot."""
        ...

    def select_repeated(self, cases: list[TestCase], times: int) -> Argv | None:
        """Argv that runs ``cases`` ``times`` over in one process; None: cannot."""
        ...

    def collect_command(self, command: str) -> str | None:
        """``command`` (one of :meth:`plan`'s) as a collection of every test it would run,
        named as a run names them; None: cannot."""
        ...

    def collected_message(self) -> str | None:
        """The skip message the collection's testcases carry (with ``COLLECTED_MARKED`` after
        it on a test the runner found marked to be skipped or to fail); None: no collection."""
        ...

    def coverage(self) -> Coverage:
        """The tracer of the changed lines, or why there is none."""
        ...

    def harness_paths(self, trees: Sequence[Path]) -> dict[str, str]:
        """Harness the runner finds by reading the files of ``trees`` (base's and head's:
        path -> why), beyond :attr:`harness_names`: what a name cannot say (go: a test file
        defining TestMain, or declaring what the code calls)."""
        ...


class RunnerDefaults:
    """Every "cannot" of the protocol: a runner subclasses this and overrides what it can."""

    expected_failures = ExpectedFailures.CANNOT
    compares = False
    tests_only_in_test_files = False
    isolates_files = False
    compare_args: Argv = ()
    harness_names: tuple[str, ...] = ()
    shadowed_modules: tuple[str, ...] = ()
    package_json_keys: tuple[str, ...] = ()

    def command(self, report_path: str) -> str:  # pragma: no cover - each runner has its own
        raise NotImplementedError

    def plan(self, report_path: str, tree: Path) -> PlannedCommand:
        return PlannedCommand(self.command(report_path))

    def runtime_signals(self, tree: Path, output: bytes) -> list[str]:
        return []

    def select(self, case: TestCase, is_module: IsModule | None = None) -> Argv | None:
        return None

    def select_batch(self, cases: list[TestCase], is_module: IsModule | None = None) -> Argv | None:
        return None

    def select_repeated(self, cases: list[TestCase], times: int) -> Argv | None:
        return None

    def collect_command(self, command: str) -> str | None:
        return None

    def collected_message(self) -> str | None:
        return None

    def coverage(self) -> Coverage:
        return Coverage(None, missing="not measured: no tracer for this runner")

    def harness_paths(self, trees: Sequence[Path]) -> dict[str, str]:
        return {}


def with_args(command: str, argv: Sequence[str]) -> str:
    """``command`` followed by ``argv``, each word quoted for the shell (the one place argv
    meets the command's shell text)."""
    return f"{command} {shlex.join(argv)}" if argv else command


def validate_report_path(path: str) -> str:
    """A runner's report path: the contract's grammar with a random name (see ``contract``)."""
    return check_report_path(path, random=True)
