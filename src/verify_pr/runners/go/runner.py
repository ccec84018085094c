"""go: ``go test -json -count=1 ./...`` with the toolchain offline, its event stream as report.

The go command writes the stream on its stdout, which the command sends to the report path; a
test's own output only reaches the stream inside ``output`` events (see reports.go_json).

The command runs ``go test`` through a shell function whose arguments replace ``./...``: what a
caller appends (a selection by id: ``-run PATTERN PACKAGE...``) names the packages itself, so
a re-run builds and runs only the packages of the tests it selects.

Compare: the test/code split is the go command's own rule, by name (``*_test.go`` is built
only into a package's test binary; ``testdata/`` is never built); the harness is the module
files, ``vendor/modules.txt``, and the test files that hold ``TestMain`` or declare no test
(``facts.harness_paths``, read from the files). Each package's tests run in a test binary of
their own, so the proof's packages re-run together (``isolates_files``). Not wired:
repetition in one process (``-count=N`` repeats a test inside the same binary, its package
state kept: no isolation between repetitions, so a process per repetition), a collection of
base (base's own run is whole), and coverage (``-coverprofile`` names blocks of files by
import path: not read yet, so "cannot", with that note).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from verify_pr.contract import RunnerName
from verify_pr.models.report import ReportFormat, TestCase, TestReport
from verify_pr.reports._common import DEFAULT_TREE_ROOT, ReportSource
from verify_pr.reports.go_json import parse_go_json
from verify_pr.runners import _files
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
from verify_pr.runners.go import harness_code
from verify_pr.runners.go import select as _select
from verify_pr.runners.go.toolchain import go_argv, prepare
from verify_pr.sandbox import tree_files

GO_MOD = "go.mod"
# -count=1: never a cached result; -json: test2json's framed events on stdout.
TEST_ARGS: tuple[str, ...] = ("test", "-json", "-count=1")
ALL_PACKAGES = "./..."
# the shell function that runs go test: its arguments (a selection) replace ALL_PACKAGES
TEST_FUNCTION = "verify_pr_go_test"
# vendor/modules.txt: the module is vendored, and its packages build from vendor/ (never the
# module cache, which is empty offline)
VENDOR_LIST = "vendor/modules.txt"


def suite_shell(report_path: str, vendored: bool = False) -> str:
    """The suite's shell command: ``go test`` over ``./...``, or over what is appended to the
    command (the function's arguments), its stream to the report path."""
    path = validate_report_path(report_path)
    test = shlex.join(go_argv(*TEST_ARGS, *(("-mod=vendor",) if vendored else ())))
    function = (
        f'{TEST_FUNCTION}() {{ [ "$#" -gt 0 ] || set -- {ALL_PACKAGES}; {test} "$@" > {path}; }}'
    )
    return f"{function}; {prepare()} && {TEST_FUNCTION}"


class GoRunner(RunnerDefaults):
    """go test, run and compared (the module's docstring says what compare reads)."""

    name = RunnerName.GO
    report_format = ReportFormat.GO_JSON
    test_files = TestFiles.GO
    compares = True
    # the testing package has no expected failure: a test that fails is reported failed
    expected_failures = ExpectedFailures.NONE
    # go runs tests only from *_test.go files: a report never places a test in code
    tests_only_in_test_files = True
    # each package's tests are one test binary, its own process
    isolates_files = True
    # the module files: how every package builds (what go.mod replaces, which versions)
    harness_names: tuple[str, ...] = ("go.mod", "go.sum", "go.work", "go.work.sum")

    def __init__(self, tree_root: str = DEFAULT_TREE_ROOT) -> None:
        self.tree_root = tree_root

    def detect(self, tree: Path) -> Detection | None:
        if _files.entry(tree, GO_MOD) is _files.Entry.FILE:
            return Detection(self.name, Evidence.CONFIG, GO_MOD)
        return None

    def command(self, report_path: str) -> str:
        return suite_shell(report_path)

    def plan(self, report_path: str, tree: Path) -> PlannedCommand:
        # a vendored module builds from vendor/ (GOFLAGS' -mod=mod would ask the empty cache)
        vendored = tree_files.is_plain_file(tree, VENDOR_LIST)
        return PlannedCommand(suite_shell(report_path, vendored))

    def select(self, case: TestCase, is_module: IsModule | None = None) -> Argv | None:
        return _select.select(case)

    def select_batch(self, cases: list[TestCase], is_module: IsModule | None = None) -> Argv | None:
        return _select.select_batch(cases)

    # select_repeated: cannot (-count=N repeats inside one test binary, its state kept)

    def coverage(self) -> Coverage:
        return Coverage(
            None,
            missing=(
                "not measured: go's -coverprofile names blocks of files by import path, "
                "which verify-pr does not read yet"
            ),
        )

    def harness_paths(self, trees: Sequence[Path]) -> dict[str, str]:
        from verify_pr.runners.go import facts, test_decls

        found = test_decls.test_files_with_code(trees)
        for tree in trees:
            for path, why in facts.static_harness(tree).items():
                found.setdefault(path, why)
        return found

    def parse(self, report_bytes: ReportSource) -> TestReport:
        return parse_go_json(report_bytes)

    def tamper_signals(self, tree: Path) -> list[str]:
        # The go command reads no configuration from the tree that can move or fake its
        # stream (GOENV=off, the environment is the command's own). What remains is code of
        # the tree's own that runs around its tests: TestMain decides which tests run and
        # the exit status, an init() in a test file runs before any test.
        return harness_code.signals(tree)
