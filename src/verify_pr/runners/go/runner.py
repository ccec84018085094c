"""go: ``go test -json -count=1 ./...`` with the toolchain offline, its event stream as report.

The go command writes the stream on its stdout, which the command sends to the report path; a
test's own output only reaches the stream inside ``output`` events (see reports.go_json).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from verify_pr.contract import WORK_DIR, RunnerName
from verify_pr.models.report import ReportFormat, TestReport
from verify_pr.reports._common import DEFAULT_TREE_ROOT, ReportSource
from verify_pr.reports.go_json import parse_go_json
from verify_pr.runners import _files
from verify_pr.runners.base import (
    Detection,
    Evidence,
    RunnerDefaults,
    TestFiles,
    validate_report_path,
)
from verify_pr.runners.go import harness_code

GO_MOD = "go.mod"
SCRATCH = f"{WORK_DIR}/.verify-pr-go"
# The image's build cache of the standard library's common packages (tests/images: verify-pr-go
# compiles them at build time), copied into the run's own cache when the image has one.
SEED_CACHE = "/usr/local/lib/go-cache"
# The toolchain's settings, spelled out on every command (the image's go.env says the same
# but for the scratch paths): no network and no module fetch, never another toolchain, no
# configuration file, pure-Go builds (no C compiler in the image).
ENVIRONMENT: tuple[tuple[str, str], ...] = (
    ("GOTOOLCHAIN", "local"),
    ("GOFLAGS", "-mod=mod"),
    ("GOPROXY", "off"),
    ("GOSUMDB", "off"),
    ("GONOSUMDB", "*"),
    ("GOTELEMETRY", "off"),
    # The build cache (a cold one holds some 60 MB for the testing package alone) and the
    # directory where the go command links each test binary and runs it: on /work, which is
    # larger than /tmp and not noexec; a directory starting with "." is never one of ./...'s
    # packages.
    ("GOCACHE", f"{SCRATCH}/cache"),
    ("GOTMPDIR", f"{SCRATCH}/tmp"),  # noqa: S108 (on /work, in the container)
    ("GOPATH", f"{SCRATCH}/path"),
    ("GOENV", "off"),
    ("CGO_ENABLED", "0"),
)
# -count=1: never a cached result; -json: test2json's framed events on stdout.
TEST_ARGS: tuple[str, ...] = ("test", "-json", "-count=1")


def go_argv(*args: str) -> list[str]:
    """``env NAME=VALUE... go ARGS``: the go command with the settings above."""
    return ["env", *(f"{k}={v}" for k, v in ENVIRONMENT), "go", *args]


def go_shell(argv: list[str], report_path: str) -> str:
    """The shell command: make the scratch directories, run ``argv``, its stdout to the report
    path."""
    path = validate_report_path(report_path)
    env = dict(ENVIRONMENT)
    dirs = shlex.join([env["GOCACHE"], env["GOTMPDIR"]])
    seed = f"{{ [ ! -d {SEED_CACHE} ] || cp -R {SEED_CACHE}/. {shlex.quote(env['GOCACHE'])}/; }}"
    return f"mkdir -p {dirs} && {seed} && {shlex.join(argv)} > {path}"


def suite_argv(*selection: str, packages: tuple[str, ...] = ("./...",)) -> list[str]:
    """``go test -json -count=1 [SELECTION] PACKAGES`` (selection: ``-run``, ``-skip``)."""
    return go_argv(*TEST_ARGS, *selection, *packages)


class GoRunner(RunnerDefaults):
    """Run mode only, for now: compare cannot judge it (selection by id, the harness and the
    re-runs are not wired), so every "cannot" of RunnerDefaults stands."""

    name = RunnerName.GO
    report_format = ReportFormat.GO_JSON
    test_files = TestFiles.GO

    def __init__(self, tree_root: str = DEFAULT_TREE_ROOT) -> None:
        self.tree_root = tree_root

    def detect(self, tree: Path) -> Detection | None:
        if _files.entry(tree, GO_MOD) is _files.Entry.FILE:
            return Detection(self.name, Evidence.CONFIG, GO_MOD)
        return None

    def command(self, report_path: str) -> str:
        return go_shell(suite_argv(), report_path)

    def parse(self, report_bytes: ReportSource) -> TestReport:
        return parse_go_json(report_bytes)

    def tamper_signals(self, tree: Path) -> list[str]:
        # The go command reads no configuration from the tree that can move or fake its
        # stream (GOENV=off, the environment is the command's own). What remains is code of
        # the tree's own that runs around its tests: TestMain decides which tests run and
        # the exit status, an init() in a test file runs before any test.
        return harness_code.signals(tree)
