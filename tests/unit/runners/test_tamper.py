"""tamper_signals: each piece of repo config that can redirect, disable or fake the report."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from verify_pr.runners.bun.runner import BunRunner
from verify_pr.runners.jest.runner import JestRunner
from verify_pr.runners.pytest.runner import PytestRunner
from verify_pr.runners.vitest.runner import VitestRunner

PROJECTS = Path(__file__).resolve().parents[2] / "fixtures" / "projects"


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return root


def signals_text(signals: list[str]) -> str:
    return "\n".join(signals)


@pytest.mark.parametrize(
    ("addopts", "needle"),
    [
        ("-p no:junitxml", "disables the junitxml plugin"),
        ("-pno:junitxml", "disables the junitxml plugin"),
        ("-p myplugin", "loads plugin 'myplugin'"),
        ("--junitxml=/tmp/x.xml", "sets --junitxml"),
        ("--junit-xml /tmp/x.xml", "sets --junitxml"),
        ("-o junit_family=xunit2", "overrides junit_*"),
        ("--co", "without running"),
        ("-k 'not slow'", "filters which tests run"),
        ("--deselect=t.py::a", "filters which tests run"),
        ("-c other.ini", "another config"),
        ("-xvs", "stops the run early"),
    ],
)
def test_pytest_addopts(tmp_path: Path, addopts: str, needle: str) -> None:
    root = write(tmp_path, "pytest.ini", f"[pytest]\naddopts = {addopts}\n")
    assert needle in signals_text(PytestRunner().tamper_signals(root))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-p no:junitxml'\n"),
        ("pyproject.toml", "[tool.pytest]\naddopts = ['-p', 'no:junitxml']\n"),
        ("pytest.toml", "[pytest]\naddopts = ['-p', 'no:junitxml']\n"),
        ("tox.ini", "[pytest]\naddopts = -p no:junitxml\n"),
        ("setup.cfg", "[tool:pytest]\naddopts = -p no:junitxml\n"),
    ],
)
def test_pytest_every_config_file_is_inspected(tmp_path: Path, name: str, text: str) -> None:
    root = write(tmp_path, name, text)
    assert "junitxml plugin" in signals_text(PytestRunner().tamper_signals(root))


def test_pytest_junit_ini_keys(tmp_path: Path) -> None:
    root = write(tmp_path, "pytest.ini", "[pytest]\njunit_family = xunit2\njunit_suite_name = x\n")
    text = signals_text(PytestRunner().tamper_signals(root))
    assert "sets junit_family" in text
    assert "sets junit_suite_name" in text


def test_pytest_conftest_anywhere_and_shadowing_module(tmp_path: Path) -> None:
    write(tmp_path, "tests/deep/conftest.py", "")
    write(tmp_path, "node_modules/x/conftest.py", "")  # skipped dir: not a pytest conftest
    write(tmp_path, "pytest.py", "")
    text = signals_text(PytestRunner().tamper_signals(tmp_path))
    assert "1 conftest.py file(s) (tests/deep/conftest.py)" in text
    assert "top-level pytest.py: named like a module pytest or Python provides" in text


def test_pytest_symlinked_config_is_reported(tmp_path: Path) -> None:
    os.symlink("/etc/hostname", tmp_path / "pytest.ini")
    assert "pytest.ini is a symlink" in signals_text(PytestRunner().tamper_signals(tmp_path))


def test_clean_trees_have_no_signals(tmp_path: Path) -> None:
    write(tmp_path, "pytest.ini", "[pytest]\naddopts = -q -ra\ntestpaths = tests\n")
    write(tmp_path, "package.json", json.dumps({"jest": {"verbose": True}}))
    write(tmp_path, "jest.config.json", json.dumps({"testEnvironment": "node"}))
    write(tmp_path, "bunfig.toml", "[install]\nexact = true\n")
    for runner in (PytestRunner(), JestRunner(), VitestRunner(), BunRunner()):
        assert runner.tamper_signals(tmp_path) == [], runner.name


def test_any_vitest_config_is_flagged_as_code(tmp_path: Path) -> None:
    # It runs inside vitest's process: a key built at run time would escape the key scan.
    write(tmp_path, "vitest.config.ts", "export default { test: { globals: true } }")
    assert signals_text(VitestRunner().tamper_signals(tmp_path)) == (
        "vitest.config.ts runs code inside vitest and could rewrite the report"
    )


@pytest.mark.parametrize(
    "key",
    [
        "testFailureExitCode",
        "testResultsProcessor",
        "reporters",
        "testRunner",
        "globalTeardown",
        "passWithNoTests",
    ],
)
def test_jest_keys_in_js_config_and_package_json(tmp_path: Path, key: str) -> None:
    write(tmp_path, "jest.config.js", f"module.exports = {{ {key}: 0 }};")
    assert f"jest.config.js: {key}" in signals_text(JestRunner().tamper_signals(tmp_path))
    other = tmp_path / "other"
    write(other, "package.json", json.dumps({"jest": {key: 0}}))
    assert f'package.json "jest": {key}' in signals_text(JestRunner().tamper_signals(other))


@pytest.mark.parametrize(
    "key",
    ["outputFile", "reporters", "plugins", "dangerouslyIgnoreUnhandledErrors", "globalSetup"],
)
@pytest.mark.parametrize("name", ["vitest.config.ts", "vite.config.mjs"])
def test_vitest_keys(tmp_path: Path, key: str, name: str) -> None:
    write(tmp_path, name, f"export default {{ test: {{ {key}: 'x' }} }}")
    assert f"{name}: {key}" in signals_text(VitestRunner().tamper_signals(tmp_path))


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[test.reporter]\njunit = "elsewhere.xml"\n', "[test.reporter]"),
        ('[test]\npreload = ["./forge.ts"]\n', "[test] preload"),
        ('preload = ["./forge.ts"]\n', "top-level preload"),
        ("[test]\nretry = 3\n", "retry"),
        ("[test]\nroot = 'x'\n", "[test] root"),
        ("[test\nbroken", "not a readable TOML"),
    ],
)
def test_bunfig(tmp_path: Path, text: str, needle: str) -> None:
    write(tmp_path, "bunfig.toml", text)
    assert needle in signals_text(BunRunner().tamper_signals(tmp_path))


TAMPERING_FIXTURES = {"forged", "redirected", "exit_code"}


def test_fixture_projects_are_clean_except_their_own_ini(tmp_path: Path) -> None:
    # The committed fixture projects carry no tamper config (the unicode one only relaxes ids).
    for runner in (PytestRunner(), JestRunner(), VitestRunner(), BunRunner()):
        for project in sorted((PROJECTS / runner.name).iterdir()):
            if project.name in TAMPERING_FIXTURES:
                # They exist to tamper: each must be flagged.
                assert runner.tamper_signals(project), project
                continue
            signals = [
                s for s in runner.tamper_signals(project) if "runs code inside vitest" not in s
            ]
            assert signals == [], project


def test_jest_signals_in_full_each_config_in_order(tmp_path: Path) -> None:
    write(tmp_path, "package.json", json.dumps({"jest": {"passWithNoTests": True}}))
    write(
        tmp_path, "jest.config.js", "module.exports = {passWithNoTests: 1, testFailureExitCode: 0}"
    )
    (tmp_path / "jest.config.ts").symlink_to("/etc/passwd")
    assert JestRunner().tamper_signals(tmp_path) == [
        'package.json "jest": passWithNoTests makes a run with no tests exit 0',
        "jest.config.js: passWithNoTests makes a run with no tests exit 0",
        "jest.config.js: testFailureExitCode sets the exit code for failures (0 hides them)",
        "jest.config.ts could not be read as a plain text file: not inspected",
        "jest.config.js: a JS config is code: jest runs it in its own process (keys can be computed)",
        "jest.config.ts: a JS config is code: jest runs it in its own process (keys can be computed)",
    ]


def test_vitest_signals_in_full_each_config_in_order(tmp_path: Path) -> None:
    write(
        tmp_path, "vitest.config.ts", "export default { test: { reporters: ['x'], runner: 'y' } }"
    )
    (tmp_path / "vitest.config.mts").symlink_to("/etc/passwd")
    write(tmp_path, "vite.config.js", "export default {}")
    assert VitestRunner().tamper_signals(tmp_path) == [
        "vitest.config.ts: reporters adds reporters, which run code and can write files",
        "vitest.config.ts: runner replaces the test runner",
        "vitest.config.mts could not be read as a plain text file: not inspected",
        "vite.config.js runs code inside vitest and could rewrite the report",
    ]
