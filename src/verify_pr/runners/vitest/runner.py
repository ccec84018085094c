"""vitest: one report, the json reporter (jest-compatible), with task locations.

Why JSON and not JUnit (or both): one file means one output flag, so the plain-vs-dotted
``--outputFile`` crash cannot happen and there is one file to check for freshness; the JSON
carries ``success`` and a failed-to-load file as a failed suite with its message, and lines
(``--includeTaskLocation``), which JUnit lacks; it shares the jest parser. Neither format
lists unhandled errors in vitest 3.2 (exit 1 with a clean report), which the verdict's
exit-code agreement turns into NOT PROVEN.
"""

from __future__ import annotations

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
from verify_pr.runners.vitest.configs import VITE_CONFIGS, VITEST_CONFIGS

_TAMPER_KEYS = TamperKeys(
    {
        "outputFile": "sets the report path (vitest >= 4.0.3 keeps it over the CLI flag)",
        "reporters": "adds reporters, which run code and can write files",
        "plugins": "loads plugins, which run inside vitest and can rewrite the report",
        "globalSetup": "runs code outside the test files",
        "dangerouslyIgnoreUnhandledErrors": "makes unhandled errors exit 0",
        "passWithNoTests": "makes a run with no tests exit 0",
        "runner": "replaces the test runner",
        "onConsoleLog": "runs a callback on test output",
    }
)


class VitestRunner(RunnerDefaults):
    name = RunnerName.VITEST
    report_format = ReportFormat.VITEST_JSON
    test_files = TestFiles.JAVASCRIPT
    compares = True
    expected_failures = ExpectedFailures.RECORDER  # test.fails, from each task
    harness_names: tuple[str, ...] = (
        "vitest.config.*",
        "vitest.workspace.*",
        "vitest.setup.*",
        "vite.config.*",
    )
    package_json_keys: tuple[str, ...] = ("vitest",)

    def __init__(self, tree_root: str = DEFAULT_TREE_ROOT) -> None:
        self.tree_root = tree_root

    def detect(self, tree: Path) -> Detection | None:
        pkg = _files.package_json(tree)
        script = runners_in_test_script(pkg).get(self.name)
        if script is not None:
            return Detection(self.name, Evidence.SCRIPT, f"package.json scripts.{script}")
        depends = self.name in _files.dependencies(pkg)
        for name in VITEST_CONFIGS + (VITE_CONFIGS if depends else ()):
            if _files.entry(tree, name) is not _files.Entry.ABSENT:
                return Detection(self.name, Evidence.CONFIG, name)
        if depends:
            return Detection(self.name, Evidence.DEPENDENCY, "package.json devDependencies")
        return None

    def command(self, report_path: str) -> str:
        path = validate_report_path(report_path)
        # default reporter too, so the run's log stays readable for the maintainer; the JSON
        # one becomes the recorder of each test's `fails` flag (failing_recorder)
        return failing_recorder.with_vitest_recorder(
            # --configLoader runner: vite bundles a config into node_modules/.vite-temp by
            # default, which the read-only root refuses (vitest >= 3.1)
            "vitest run --configLoader runner --reporter=default --reporter=json "
            f"--outputFile.json={path} --includeTaskLocation"
        )

    def plan(self, report_path: str, tree: Path) -> PlannedCommand:
        """The command after the probe of where the package's own name resolves."""
        return node_tree.probed_plan(self.command(report_path), tree)

    def select(self, case: TestCase, is_module: IsModule | None = None) -> Argv | None:
        return _select.by_path_select(case)

    def select_batch(self, cases: list[TestCase], is_module: IsModule | None = None) -> Argv | None:
        return _select.by_path_batch(cases)

    def coverage(self) -> Coverage:
        from verify_pr.runners.node.coverage import instrument_vitest

        # vitest runs the suite again without our provider when its config cannot load it
        return Coverage(instrument_vitest, JS_SUFFIXES, may_drop=True)

    def parse(self, report_bytes: ReportSource) -> TestReport:
        return parse_jest_json(
            report_bytes, dialect=JsonDialect.VITEST, tree_root=self.tree_root, recorded=True
        )

    def tamper_signals(self, tree: Path) -> list[str]:
        signals: list[str] = []
        for name, found in _TAMPER_KEYS.scan(tree, VITEST_CONFIGS + VITE_CONFIGS):
            signals.extend(found)
            if not found:
                # Like a conftest.py: the config is code run inside vitest's own process, so
                # it can rewrite the report whatever keys it names (or builds at run time).
                signals.append(f"{name} runs code inside vitest and could rewrite the report")
        signals.extend(f.signal() for f in config_code.findings(tree, config_code.VITEST))
        return signals
