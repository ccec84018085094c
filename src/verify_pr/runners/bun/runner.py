"""bun: ``bun test`` with its JUnit reporter (bun has no JSON reporter).

A bun lockfile (bun.lock, bun.lockb) names the package manager, not the runner: it is never
evidence here. A bunfig.toml counts only with a ``[test]`` table (it also configures installs).
"""

from __future__ import annotations

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
    IsModule,
    RunnerDefaults,
    TestFiles,
    validate_report_path,
)
from verify_pr.runners.node import select as _select

BUNFIG = "bunfig.toml"
_TYPE_PACKAGES = ("@types/bun", "bun-types")
_TEST_KEYS = {
    "reporter": "[test.reporter] can send the report elsewhere (bun 1.4.5 lets it win "
    "over --reporter-outfile)",
    "preload": "[test] preload runs code before the tests and can rewrite the report "
    "after bun exits",
    "root": "[test] root changes which files are tested",
    "retry": "[test] retry reruns failing tests, hiding flaky failures",
}


class BunRunner(RunnerDefaults):
    """Cannot: record expected failures (no reporter or hook exposes the flag), repeat in one
    process, trace coverage, probe where the package resolves (bun resolves differently)."""

    name = RunnerName.BUN
    report_format = ReportFormat.JUNIT
    test_files = TestFiles.JAVASCRIPT
    compares = True
    harness_names: tuple[str, ...] = (BUNFIG,)

    def __init__(self, tree_root: str = DEFAULT_TREE_ROOT) -> None:
        self.tree_root = tree_root

    def detect(self, tree: Path) -> Detection | None:
        pkg = _files.package_json(tree)
        script = runners_in_test_script(pkg).get(self.name)
        if script is not None:
            return Detection(self.name, Evidence.SCRIPT, f"package.json scripts.{script}")
        if _files.table(_files.read_toml(tree, BUNFIG), "test") is not None:
            return Detection(self.name, Evidence.CONFIG, f"{BUNFIG} [test]")
        deps = _files.dependencies(pkg)
        for package in _TYPE_PACKAGES:
            if package in deps:
                return Detection(self.name, Evidence.DEPENDENCY, f"package.json {package}")
        return None

    def command(self, report_path: str) -> str:
        path = validate_report_path(report_path)
        return f"bun test --reporter=junit --reporter-outfile={path}"

    def select(self, case: TestCase, is_module: IsModule | None = None) -> Argv | None:
        return _select.by_path_select(case)

    def select_batch(self, cases: list[TestCase], is_module: IsModule | None = None) -> Argv | None:
        return _select.by_path_batch(cases)

    def coverage(self) -> Coverage:
        return Coverage(
            None, missing="not measured: bun has no coverage verify-pr can read from outside"
        )

    def parse(self, report_bytes: ReportSource) -> TestReport:
        return parse_junit(report_bytes, dialect=JunitDialect.BUN, tree_root=self.tree_root)

    def tamper_signals(self, tree: Path) -> list[str]:
        code = [f.signal() for f in config_code.findings(tree, config_code.BUN)]
        return _bunfig_signals(tree) + code


def _bunfig_signals(tree: Path) -> list[str]:
    kind = _files.entry(tree, BUNFIG)
    if kind is _files.Entry.ABSENT:
        return []
    config = _files.read_toml(tree, BUNFIG)
    if config is None:
        return [f"{BUNFIG} is not a readable TOML file: bun may read it, we cannot"]
    signals: list[str] = []
    if "preload" in config:
        signals.append(f"{BUNFIG}: top-level preload runs code before the tests")
    test: dict[str, Any] = _files.table(config, "test") or {}
    signals.extend(f"{BUNFIG}: {message}" for key, message in _TEST_KEYS.items() if key in test)
    return signals
