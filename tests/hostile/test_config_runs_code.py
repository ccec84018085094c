"""Issue 12, family 2: configuration that makes the runner execute the tree's code.

Every such piece is a reason on the verdict (``runners.config_code``; the paths it names are
listed by ``tests.config_helpers.code_running_config``). Each tree holds a failing test next to the
config; the positive control is proof, from the same real run, that the config's code did run
(its marker in the output, or the tests it collected or the fixture it provided in the
report), so the reason is about code that really ran, never a guess.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.config_helpers import code_running_config
from tests.hostile.helpers import control
from tests.hostile.verdicts import (
    FAILING_JEST,
    FAILING_PYTEST,
    MARKER,
    NODE_IMAGE,
    counts,
    output,
    plain_pytest,
    run,
    tree,
    verdict,
)

MARK = f'process.stderr.write("{MARKER}\\n");\n'


def _pkg(jest: dict[str, object] | None = None, **more: object) -> str:
    body: dict[str, object] = {"name": "x", "scripts": {"test": "jest"}, **more}
    if jest is not None:
        body["jest"] = jest
    return json.dumps(body)


USES_LIB = "const lib = require('lib');\ntest('fails', () => { expect(lib.ok()).toBe(true); });\n"
USES_SEMVER = "const s = require('semver');\ntest('fails', () => { expect(s.mocked).toBe(2); });\n"

# case -> (files, the reason that must be on the verdict, the harness paths listed)
JEST_CASES: dict[str, tuple[dict[str, str], str, set[str]]] = {
    "setupFiles": (
        {"package.json": _pkg({"setupFiles": ["./setup.js"]}), "setup.js": MARK},
        'package.json "jest": setupFiles',
        {"package.json", "setup.js"},
    ),
    "setupFilesAfterEnv": (
        {"package.json": _pkg({"setupFilesAfterEnv": ["<rootDir>/after.js"]}), "after.js": MARK},
        'package.json "jest": setupFilesAfterEnv',
        {"after.js"},
    ),
    "testEnvironment": (
        {
            "package.json": _pkg({"testEnvironment": "./env.js"}),
            "env.js": MARK + "module.exports = require('jest-environment-node');\n",
        },
        'package.json "jest": testEnvironment',
        {"env.js"},
    ),
    "transform": (
        {
            "package.json": _pkg({"transform": {"\\.js$": "./transform.js"}}),
            "transform.js": MARK + "module.exports = { process: (code) => ({ code }) };\n",
        },
        'package.json "jest": transform',
        {"transform.js"},
    ),
    "preset": (
        {
            "package.json": _pkg({"preset": "./preset/jest-preset.js"}),
            "preset/jest-preset.js": MARK + "module.exports = {};\n",
        },
        'package.json "jest": preset',
        {"preset/jest-preset.js"},
    ),
    "globalSetup": (
        {
            "package.json": _pkg({"globalSetup": "./gs.js"}),
            "gs.js": MARK + "module.exports = async () => {};\n",
        },
        'package.json "jest": globalSetup',
        {"gs.js"},
    ),
    "globalTeardown": (
        {
            "package.json": _pkg({"globalTeardown": "./gt.js"}),
            "gt.js": MARK + "module.exports = async () => {};\n",
        },
        'package.json "jest": globalTeardown',
        {"gt.js"},
    ),
    "reporters": (
        {
            "package.json": _pkg({"reporters": ["default", "./rep.js"]}),
            "rep.js": MARK + "module.exports = class { onRunComplete() {} };\n",
        },
        'package.json "jest": reporters',
        {"rep.js"},
    ),
    "testResultsProcessor": (
        {
            "package.json": _pkg({"testResultsProcessor": "./proc.js"}),
            "proc.js": MARK + "module.exports = (results) => results;\n",
        },
        'package.json "jest": testResultsProcessor',
        {"proc.js"},
    ),
    "moduleNameMapper": (
        {
            "package.json": _pkg({"moduleNameMapper": {"^lib$": "<rootDir>/fake-lib.js"}}),
            "fake-lib.js": MARK + "module.exports = { ok: () => false };\n",
            "fails.test.js": USES_LIB,
        },
        "moduleNameMapper maps imports to the tree's own files",
        {"fake-lib.js"},
    ),
    "jest.config.js-computed-key": (
        {
            "package.json": _pkg(),
            "jest.config.js": MARK + "module.exports = { ['verb' + 'ose']: false };\n",
        },
        "jest.config.js: a JS config is code",
        {"jest.config.js"},
    ),
    "babel.config.js": (
        {"package.json": _pkg(), "babel.config.js": MARK + "module.exports = {};\n"},
        "babel.config.js: babel config",
        {"babel.config.js"},
    ),
    ".babelrc-plugin": (
        {
            "package.json": _pkg(),
            ".babelrc": json.dumps({"plugins": ["./plug.js"]}),
            "plug.js": MARK + "module.exports = () => ({ visitor: {} });\n",
        },
        ".babelrc: babel config",
        {".babelrc"},
    ),
    "root-__mocks__": (
        {
            "package.json": _pkg(),
            "__mocks__/semver.js": MARK + "module.exports = { mocked: 1 };\n",
            "fails.test.js": USES_SEMVER,
        },
        "__mocks__: a root __mocks__",
        {"__mocks__"},
    ),
}


@pytest.mark.parametrize("case", sorted(JEST_CASES))
def test_jest_config_that_runs_code_is_a_reason(tmp_path: Path, case: str) -> None:
    files, reason, harness = JEST_CASES[case]
    repo = tree(tmp_path, {**FAILING_JEST, **files})
    assert harness <= set(code_running_config(repo))
    ours = run(repo, NODE_IMAGE, tmp_path / "out", "--runner", "jest")
    assert MARKER in output(ours, tmp_path / "out"), ours.verdict["reasons"]
    control("the config's code ran inside jest (its marker is in the run's output)")
    verdict(ours, "FAIL", reason)


PLUGIN = "import pytest\n\n@pytest.fixture\ndef vpr_fixture():\n    return 'loaded'\n"
USES_PLUGIN = "def test_plugin(vpr_fixture):\n    assert vpr_fixture == 'loaded'\n"


def test_pytest_python_files_is_a_reason(python_image: str, tmp_path: Path) -> None:
    repo = tree(
        tmp_path,
        {
            **FAILING_PYTEST,
            "pytest.ini": "[pytest]\npython_files = test_*.py check_*.py\n",
            "check_extra.py": "def test_extra():\n    assert True\n",
        },
    )
    ours = run(repo, python_image, tmp_path / "out", "--runner", "pytest")
    files = {c["file"] for c in ours.verdict["testcases"]}
    assert "check_extra.py" in files
    control("check_extra.py was imported and run as a test module (it is in the report)")
    verdict(ours, "FAIL", "pytest.ini: sets python_files")


def test_pytest_plugins_in_a_test_module_is_a_reason(python_image: str, tmp_path: Path) -> None:
    repo = tree(
        tmp_path,
        {
            "test_fails.py": 'pytest_plugins = ["vpr_plugin"]\n\n'
            + FAILING_PYTEST["test_fails.py"]
            + "\n"
            + USES_PLUGIN,
            "vpr_plugin.py": PLUGIN,
        },
    )
    ours = run(repo, python_image, tmp_path / "out", "--runner", "pytest")
    assert counts(ours) == (2, 1, 1, 0, 0)
    control("the plugin the test module names was loaded (its fixture served a test)")
    verdict(ours, "FAIL", "test_fails.py: names pytest_plugins")


def test_pytest_plugin_in_addopts_is_a_reason(python_image: str, tmp_path: Path) -> None:
    repo = tree(
        tmp_path,
        {
            **FAILING_PYTEST,
            "test_plugin.py": USES_PLUGIN,
            "pytest.ini": "[pytest]\naddopts = -p vpr_plugin\n",
            "vpr_plugin.py": PLUGIN,
        },
    )
    plain = plain_pytest(repo, python_image, tmp_path / "plain")
    assert counts(plain) == (2, 1, 1, 0, 0)
    control("plain python3 -m pytest loads the tree's plugin from addopts (its fixture served)")
    # The working directory goes on sys.path once pytest is loaded, before it reads addopts:
    # the plugin loads as under python3 -m pytest (FAIL), or, should it not, the run cannot
    # start (NOT_PROVEN); either way the plugin is named.
    ours = run(repo, python_image, tmp_path / "ours", "--runner", "pytest")
    verdict(ours, ("FAIL", "NOT_PROVEN"), "addopts loads plugin 'vpr_plugin'")
