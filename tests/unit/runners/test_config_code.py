"""config_code: every piece of config that makes a runner run the tree's code is a finding,
a reason on the verdict (tamper signals) and a harness path (code_running_config)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.config_helpers import code_running_config

from verify_pr.runners.bun.runner import BunRunner
from verify_pr.runners.config_code import REPLACES_RUNNER, findings
from verify_pr.runners.jest.runner import JestRunner
from verify_pr.runners.pytest.runner import PytestRunner
from verify_pr.runners.vitest.runner import VitestRunner


def write(root: Path, name: str, text: str = "") -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return root


def jest_text(tree: Path) -> str:
    return "\n".join(JestRunner().tamper_signals(tree))


def pytest_text(tree: Path) -> str:
    return "\n".join(PytestRunner().tamper_signals(tree))


@pytest.mark.parametrize(
    "key",
    [
        "setupFiles",
        "setupFilesAfterEnv",
        "transform",
        "preset",
        "globalSetup",
        "globalTeardown",
        "reporters",
        "testResultsProcessor",
        "snapshotResolver",
        "testSequencer",
        "resolver",
        "moduleDirectories",
        "modulePaths",
    ],
)
def test_jest_code_keys_in_package_json_and_json_config(tmp_path: Path, key: str) -> None:
    write(tmp_path, "package.json", json.dumps({"jest": {key: ["<rootDir>/setup/x.js"]}}))
    write(tmp_path, "setup/x.js")
    assert f'package.json "jest": {key} ' in jest_text(tmp_path)
    assert "setup/x.js: named by package.json" in jest_text(tmp_path)
    assert {"package.json", "setup/x.js"} <= set(code_running_config(tmp_path))
    other = tmp_path / "other"
    write(other, "jest.config.json", json.dumps({key: "./y.js"}))
    write(other, "y.js")
    assert f"jest.config.json: {key} " in jest_text(other)
    assert "y.js" in code_running_config(other)


def test_jest_test_environment_builtin_is_not_code(tmp_path: Path) -> None:
    write(tmp_path, "package.json", json.dumps({"jest": {"testEnvironment": "node"}}))
    assert jest_text(tmp_path) == ""
    write(tmp_path, "package.json", json.dumps({"jest": {"moduleDirectories": ["node_modules"]}}))
    assert jest_text(tmp_path) == ""
    write(tmp_path, "package.json", json.dumps({"jest": {"testEnvironment": "./env.js"}}))
    assert "testEnvironment loads a custom test environment" in jest_text(tmp_path)


def test_jest_module_name_mapper_only_into_the_tree(tmp_path: Path) -> None:
    write(tmp_path, "package.json", json.dumps({"jest": {"moduleNameMapper": {"^a$": "b"}}}))
    assert jest_text(tmp_path) == ""
    mapper = {"^lib$": "<rootDir>/fake/lib.js"}
    write(tmp_path, "package.json", json.dumps({"jest": {"moduleNameMapper": mapper}}))
    write(tmp_path, "fake/lib.js")
    assert "moduleNameMapper maps imports to the tree's own files" in jest_text(tmp_path)
    assert "fake/lib.js" in code_running_config(tmp_path)


@pytest.mark.parametrize("ext", ["js", "ts", "mjs", "cjs", "mts", "cts"])
def test_any_js_jest_config_is_code_even_with_computed_keys(tmp_path: Path, ext: str) -> None:
    # The key is built at run time: no key scan can see it, the file is still a reason.
    write(tmp_path, f"jest.config.{ext}", "module.exports = { ['setup' + 'Files']: [] };")
    assert f"jest.config.{ext}: a JS config is code" in jest_text(tmp_path)
    assert f"jest.config.{ext}" in code_running_config(tmp_path)


@pytest.mark.parametrize(
    "name", ["babel.config.js", "babel.config.json", ".babelrc", ".babelrc.cjs", "src/.babelrc"]
)
def test_babel_config_is_code_for_jest(tmp_path: Path, name: str) -> None:
    write(tmp_path, name, "{}")
    assert f"{name}: babel config" in jest_text(tmp_path)
    assert VitestRunner().tamper_signals(tmp_path) == []  # vitest does not use babel


def test_babel_key_in_package_json(tmp_path: Path) -> None:
    write(tmp_path, "package.json", json.dumps({"babel": {"plugins": ["./p.js"]}}))
    assert 'package.json "babel": a babel key' in jest_text(tmp_path)


def test_root_mocks_directory(tmp_path: Path) -> None:
    write(tmp_path, "__mocks__/left-pad.js")
    assert "__mocks__: a root __mocks__" in jest_text(tmp_path)
    deeper = tmp_path / "deeper"
    write(deeper, "src/__mocks__/x.js")
    assert "__mocks__" not in jest_text(deeper)


def test_node_modules_in_the_tree_for_every_node_runner(tmp_path: Path) -> None:
    write(tmp_path, "node_modules/jest/bin/jest.js", "process.exit(0)")
    write(tmp_path, "packages/a/node_modules/x/index.js")
    text = jest_text(tmp_path)
    assert "node_modules/jest: the image's jest hands the whole run over" in text
    assert "packages/a/node_modules: a node_modules in the tree" in text
    for runner in (VitestRunner(), BunRunner()):
        assert any("node_modules: a node_modules" in s for s in runner.tamper_signals(tmp_path))
    assert PytestRunner().tamper_signals(tmp_path) == []


@pytest.mark.parametrize("key", ["python_files", "python_classes", "python_functions"])
def test_pytest_collection_patterns(tmp_path: Path, key: str) -> None:
    write(tmp_path, "pytest.ini", f"[pytest]\n{key} = *.py\n")
    assert f"pytest.ini: sets {key}" in pytest_text(tmp_path)
    assert "pytest.ini" in code_running_config(tmp_path)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("pytest.ini", "[pytest]\naddopts = -p helpers.plugin\n"),
        ("tox.ini", "[pytest]\naddopts = -phelpers.plugin\n"),
        ("setup.cfg", "[tool:pytest]\naddopts = -q -p helpers.plugin\n"),
        ("pyproject.toml", "[tool.pytest.ini_options]\naddopts = ['-p', 'helpers.plugin']\n"),
    ],
)
def test_pytest_plugin_in_any_config(tmp_path: Path, name: str, text: str) -> None:
    write(tmp_path, name, text)
    assert "addopts loads plugin 'helpers.plugin'" in pytest_text(tmp_path)
    assert name in code_running_config(tmp_path)


def test_pytest_disabling_a_plugin_is_not_loading_code(tmp_path: Path) -> None:
    write(tmp_path, "pytest.ini", "[pytest]\naddopts = -p no:randomly\n")
    text = pytest_text(tmp_path)
    assert "disables plugin 'randomly'" in text
    assert "loads plugin" not in text


def test_pytest_plugins_in_any_test_module(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_a.py", 'pytest_plugins = ["tests.helper"]\n')
    write(tmp_path, "tests/test_b.py", "def test_b(): pass\n")
    text = pytest_text(tmp_path)
    assert "tests/test_a.py: names pytest_plugins" in text
    assert "test_b" not in text
    assert "tests/test_a.py" in code_running_config(tmp_path)


def test_pytest_plugins_in_a_non_utf8_module_and_a_big_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verify_pr.runners import config_code

    (tmp_path / "test_latin.py").write_bytes(
        b"# -*- coding: latin-1 -*-\n# caf\xe9\npytest_plugins = ['p']\n"
    )
    write(tmp_path, "test_big.py", "x = 1\n" * 100)
    monkeypatch.setattr(config_code, "MAX_MODULE_BYTES", 200)
    text = pytest_text(tmp_path)
    assert "test_latin.py: names pytest_plugins" in text
    assert "test_big.py: a Python file too big to scan" in text


def test_pytest_pythonpath_and_warning_class_import(tmp_path: Path) -> None:
    write(tmp_path, "pytest.ini", "[pytest]\npythonpath = .\nfilterwarnings = error::pkg.W\n")
    text = pytest_text(tmp_path)
    assert "sets pythonpath" in text
    assert "names a warning class by module" in text
    write(tmp_path, "pytest.ini", "[pytest]\nfilterwarnings = error::DeprecationWarning\n")
    assert pytest_text(tmp_path) == ""


def test_compiled_modules_without_source(tmp_path: Path) -> None:
    write(tmp_path, "helper.pyc")
    write(tmp_path, "ext.cpython-311-x86_64-linux-gnu.so")
    write(tmp_path, "__pycache__/kept.cpython-311.pyc")  # never read: pycache prefix
    text = pytest_text(tmp_path)
    assert "helper.pyc: compiled Python module" in text
    assert "ext.cpython-311-x86_64-linux-gnu.so: compiled Python module" in text
    assert "kept" not in text


@pytest.mark.parametrize("name", ["argparse.py", "pluggy.py", "packaging/__init__.py"])
def test_top_level_module_named_like_a_runner_or_stdlib_module(tmp_path: Path, name: str) -> None:
    write(tmp_path, name)
    top = name.split("/")[0]
    assert f"top-level {top}: named like a module" in pytest_text(tmp_path)


@pytest.mark.parametrize("name", ["_pytest/__init__.py", "pluggy.py", "json/__init__.py"])
def test_a_src_layout_module_named_like_a_runner_module_is_named(tmp_path: Path, name: str) -> None:
    # /work/src is on PYTHONPATH from the interpreter's start in a src layout: a reason
    write(tmp_path, f"src/{name}")
    write(tmp_path, "src/demo/__init__.py")
    assert pytest_text(tmp_path) == ""  # the control: no layout declared, src/ is not on the path
    write(tmp_path, "pyproject.toml", '[tool.setuptools.packages.find]\nwhere = ["src"]\n')
    top = name.split("/")[0]
    text = pytest_text(tmp_path)
    assert f"src-layout src/{top}: named like a module" in text
    assert REPLACES_RUNNER not in text  # pluggy's own src tree tests itself so: not a bar to PASS


def test_test_directory_and_plain_directories_are_not_shadows(tmp_path: Path) -> None:
    write(tmp_path, "test/__init__.py")  # the stdlib has a `test` package; projects too
    write(tmp_path, "json/data.txt")  # a directory without __init__.py is not a package here
    assert pytest_text(tmp_path) == ""


def test_vitest_and_bun_named_files_are_harness(tmp_path: Path) -> None:
    write(tmp_path, "vitest.config.ts", "export default { test: { setupFiles: ['./s.ts'] } }")
    write(tmp_path, "s.ts")
    write(tmp_path, "bunfig.toml", '[test]\npreload = ["./pre.ts"]\n')
    write(tmp_path, "pre.ts")
    listed = code_running_config(tmp_path)
    assert {"vitest.config.ts", "s.ts", "pre.ts"} <= set(listed)
    assert any(
        s.startswith("pre.ts: named by bunfig.toml") for s in BunRunner().tamper_signals(tmp_path)
    )


def test_links_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.js"
    outside.write_text("")
    tree = tmp_path / "tree"
    write(tree, "package.json", json.dumps({"jest": {"setupFiles": ["./link.js"]}}))
    os.symlink(outside, tree / "link.js")
    assert "link.js" not in code_running_config(tree)
    assert "setupFiles runs these files" in jest_text(tree)


def test_node_global_folders_under_home(tmp_path: Path) -> None:
    write(tmp_path, ".node_modules/left-pad/index.js")
    assert any(".node_modules: Node's global" in s for s in JestRunner().tamper_signals(tmp_path))


def test_a_tree_too_big_to_scan_is_a_runner_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from verify_pr.runners import _files

    monkeypatch.setattr(_files, "MAX_WALK_ENTRIES", 3)
    for index in range(5):
        write(tmp_path, f"f{index}.txt")
    (finding,) = [f for f in findings(tmp_path) if f.path == "."]
    assert finding.replaces_runner
    assert "too big to scan" in finding.signal()


def test_clean_tree_lists_nothing(tmp_path: Path) -> None:
    write(tmp_path, "src/app.py", "x = 1\n")
    write(tmp_path, "tests/test_app.py", "def test(): pass\n")
    assert findings(tmp_path) == []
    assert code_running_config(tmp_path) == []
