"""jest: the ``--json`` report (jest-junit omits files that failed to run and shows todo as
passed, NOTES §3), with test locations."""

from __future__ import annotations

import json
from pathlib import Path

from verify_pr.contract import RunnerName
from verify_pr.models.report import ReportFormat, TestCase, TestReport
from verify_pr.reports._common import DEFAULT_TREE_ROOT, ReportSource
from verify_pr.reports.jest_json import JsonDialect, parse_jest_json
from verify_pr.runners import _files, config_code
from verify_pr.runners._config_keys import TamperKeys
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
from verify_pr.runners.node import failing_recorder
from verify_pr.runners.node import select as _select
from verify_pr.runners.node import tree as node_tree
from verify_pr.runners.node.coverage import JS_SUFFIXES

CONFIG_FILES = tuple(
    f"jest.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts", "cts", "json")
)
# Config keys that change the exit code or skip the run (keys that run code: config_code).
_TAMPER_KEYS = TamperKeys(
    {
        "testFailureExitCode": "sets the exit code for failures (0 hides them)",
        "passWithNoTests": "makes a run with no tests exit 0",
    }
)


class JestRunner(RunnerDefaults):
    name = RunnerName.JEST
    report_format = ReportFormat.JEST_JSON
    test_files = TestFiles.JAVASCRIPT
    compares = True
    expected_failures = ExpectedFailures.RECORDER  # test.failing, from jest-circus's state
    tests_only_in_test_files = True  # its testMatch: no in-source tests
    isolates_files = True  # each test file in a module registry and environment of its own
    harness_names: tuple[str, ...] = ("jest.config.*", "jest.setup.*", "jest-setup.*")
    package_json_keys: tuple[str, ...] = ("jest",)

    def __init__(self, tree_root: str = DEFAULT_TREE_ROOT) -> None:
        self.tree_root = tree_root

    def detect(self, tree: Path) -> Detection | None:
        pkg = _files.package_json(tree)
        script = runners_in_test_script(pkg).get(self.name)
        if script is not None:
            return Detection(self.name, Evidence.SCRIPT, f"package.json scripts.{script}")
        for name in CONFIG_FILES:
            if _files.entry(tree, name) is not _files.Entry.ABSENT:
                return Detection(self.name, Evidence.CONFIG, name)
        if isinstance(pkg.get("jest"), dict):
            return Detection(self.name, Evidence.CONFIG, 'package.json "jest" key')
        if self.name in _files.dependencies(pkg):
            return Detection(self.name, Evidence.DEPENDENCY, "package.json devDependencies")
        return None

    def command(self, report_path: str) -> str:
        path = validate_report_path(report_path)
        # --ci: no snapshot writing; --testLocationInResults: line numbers in the JSON; run
        # through the recorder of each test's `failing` flag (failing_recorder)
        return failing_recorder.with_jest_recorder(
            f"jest --ci --json --outputFile={path} --testLocationInResults"
        )

    def plan(self, report_path: str, tree: Path) -> PlannedCommand:
        """The command after the probe of where the package's own name resolves."""
        return node_tree.probed_plan(self.command(report_path), tree)

    def select(self, case: TestCase, is_module: IsModule | None = None) -> Argv | None:
        return _select.jest_select(case)

    def select_batch(self, cases: list[TestCase], is_module: IsModule | None = None) -> Argv | None:
        return _select.jest_batch(cases)

    def select_repeated(self, cases: list[TestCase], times: int) -> Argv | None:
        return _select.jest_repeated(cases, times)

    def coverage(self) -> Coverage:
        from verify_pr.runners.node.coverage import instrument_jest

        return Coverage(instrument_jest, JS_SUFFIXES)

    def parse(self, report_bytes: ReportSource) -> TestReport:
        return parse_jest_json(
            report_bytes, dialect=JsonDialect.JEST, tree_root=self.tree_root, recorded=True
        )

    def tamper_signals(self, tree: Path) -> list[str]:
        signals: list[str] = []
        jest_key = _files.package_json(tree).get("jest")
        if jest_key is not None:
            signals.extend(_TAMPER_KEYS.signals('package.json "jest"', json.dumps(jest_key)))
        for _name, found in _TAMPER_KEYS.scan(tree, CONFIG_FILES):
            signals.extend(found)
        signals.extend(f.signal() for f in config_code.findings(tree, config_code.JEST))
        return signals
