"""Detection: order (scripts.test > config > dependency), ties refused, files only read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from verify_pr.errors import ConfigError
from verify_pr.runners._scripts import runners_in_test_script
from verify_pr.runners.base import Evidence
from verify_pr.runners.detect import detect_runner, detections


def tree(tmp_path: Path, files: dict[str, str | dict[str, object]]) -> Path:
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return tmp_path


def pkg(test: str | None = None, dev: tuple[str, ...] = (), **extra: object) -> dict[str, object]:
    data: dict[str, object] = {"devDependencies": dict.fromkeys(dev, "1.0.0"), **extra}
    if test is not None:
        data["scripts"] = {"test": test}
    return data


@pytest.mark.parametrize(
    ("files", "runner", "evidence"),
    [
        ({"pytest.ini": "[pytest]\n"}, "pytest", Evidence.CONFIG),
        ({"pytest.toml": "[pytest]\n"}, "pytest", Evidence.CONFIG),
        ({".pytest.toml": "[pytest]\n"}, "pytest", Evidence.CONFIG),
        (
            {"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n"},
            "pytest",
            Evidence.CONFIG,
        ),
        ({"pyproject.toml": "[tool.pytest]\n"}, "pytest", Evidence.CONFIG),
        ({"tox.ini": "[pytest]\n"}, "pytest", Evidence.CONFIG),
        ({"setup.cfg": "[tool:pytest]\n"}, "pytest", Evidence.CONFIG),
        ({"conftest.py": ""}, "pytest", Evidence.CONFIG),
        ({"requirements-dev.txt": "pytest==9.0.3\n"}, "pytest", Evidence.DEPENDENCY),
        (
            {
                "pyproject.toml": "[project]\nname='x'\n[project.optional-dependencies]\n"
                "test = ['pytest>=8']\n"
            },
            "pytest",
            Evidence.DEPENDENCY,
        ),
        ({"package.json": pkg("jest --coverage")}, "jest", Evidence.SCRIPT),
        ({"package.json": pkg(), "jest.config.ts": "export default {}"}, "jest", Evidence.CONFIG),
        ({"package.json": pkg(jest={"verbose": True})}, "jest", Evidence.CONFIG),
        ({"package.json": pkg(dev=("jest",))}, "jest", Evidence.DEPENDENCY),
        ({"package.json": pkg("vitest run")}, "vitest", Evidence.SCRIPT),
        ({"vitest.config.mts": ""}, "vitest", Evidence.CONFIG),
        ({"package.json": pkg(dev=("vitest",)), "vite.config.ts": ""}, "vitest", Evidence.CONFIG),
        ({"package.json": pkg(dev=("vitest",))}, "vitest", Evidence.DEPENDENCY),
        ({"package.json": pkg("bun test")}, "bun", Evidence.SCRIPT),
        ({"bunfig.toml": "[test]\npreload = []\n"}, "bun", Evidence.CONFIG),
        ({"package.json": pkg(dev=("@types/bun",))}, "bun", Evidence.DEPENDENCY),
        ({"package.json": pkg("pytest -q")}, "pytest", Evidence.SCRIPT),
    ],
)
def test_single_evidence(
    tmp_path: Path, files: dict[str, str | dict[str, object]], runner: str, evidence: Evidence
) -> None:
    root = tree(tmp_path, files)
    assert detect_runner(root).name == runner
    assert [(d.runner, d.evidence) for d in detections(root)] == [(runner, evidence)]


def test_script_beats_config_beats_dependency(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "package.json": pkg("vitest", dev=("jest",)),
            "jest.config.js": "",
            "pytest.ini": "[pytest]\n",
        },
    )
    assert detect_runner(root).name == "vitest"
    (root / "package.json").write_text(json.dumps(pkg(dev=("vitest",))))
    (root / "pytest.ini").unlink()
    assert detect_runner(root).name == "jest"  # config beats vitest's dependency


def test_tie_is_refused_and_names_both(tmp_path: Path) -> None:
    root = tree(tmp_path, {"pytest.ini": "[pytest]\n", "package.json": pkg(), "jest.config.js": ""})
    with pytest.raises(ConfigError, match=r"ambiguous.*pytest \(pytest.ini\).*jest"):
        detect_runner(root)


def test_two_runners_in_one_script_are_ambiguous(tmp_path: Path) -> None:
    root = tree(tmp_path, {"package.json": pkg("jest && vitest run")})
    with pytest.raises(ConfigError, match="ambiguous"):
        detect_runner(root)


def test_nothing_detected(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no test runner"):
        detect_runner(tmp_path)


@pytest.mark.parametrize("lockfile", ["bun.lock", "bun.lockb"])
def test_bun_lockfile_names_the_package_manager_not_the_runner(
    tmp_path: Path, lockfile: str
) -> None:
    root = tree(tmp_path, {lockfile: "", "package.json": pkg(dev=("jest",))})
    assert detect_runner(root).name == "jest"
    (root / "package.json").unlink()
    with pytest.raises(ConfigError):
        detect_runner(root)


def test_bunfig_without_test_table_is_not_evidence(tmp_path: Path) -> None:
    root = tree(tmp_path, {"bunfig.toml": "[install]\nexact = true\n"})
    assert detections(root) == []


def test_vite_config_needs_vitest_dependency(tmp_path: Path) -> None:
    assert detections(tree(tmp_path, {"vite.config.ts": ""})) == []


def test_explicit_choice_and_unknown_choice(tmp_path: Path) -> None:
    assert detect_runner(tmp_path, "bun").name == "bun"
    with pytest.raises(ConfigError, match="unknown runner"):
        detect_runner(tmp_path, "mocha")


def test_detection_is_deterministic(tmp_path: Path) -> None:
    root = tree(tmp_path, {"pytest.ini": "", "jest.config.js": "", "vitest.config.ts": ""})
    assert [d.runner for d in detections(root)] == ["pytest", "jest", "vitest"]


def test_symlinked_package_json_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(pkg("jest")))
    root = tmp_path / "tree"
    root.mkdir()
    os.symlink(outside, root / "package.json")
    assert detections(root) == []


def test_fifo_config_does_not_block(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "package.json")
    os.mkfifo(tmp_path / "pyproject.toml")
    assert detections(tmp_path) == []


def test_oversized_and_binary_configs_are_ignored(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps(pkg("jest")) + " " * 600_000)
    (tmp_path / "pyproject.toml").write_bytes(b"\xff\xfe[tool.pytest]")
    assert detections(tmp_path) == []


def test_detection_never_executes_config(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    code = f"require('fs').writeFileSync({str(marker)!r}, 'x'); module.exports = {{}}"
    root = tree(tmp_path, {"jest.config.js": code, "package.json": pkg(f"touch {marker} && jest")})
    assert detect_runner(root).name == "jest"
    assert not marker.exists()


@pytest.mark.parametrize(
    ("scripts", "expected"),
    [
        ({"test": "npm run test:unit", "test:unit": "vitest run"}, {"vitest"}),
        ({"test": "yarn unit", "unit": "CI=1 npx jest"}, {"jest"}),
        ({"test": "bun run t", "t": "bun test --coverage"}, {"bun"}),
        ({"test": "npm run a", "a": "npm run test"}, set()),  # a cycle, no runner
        ({"test": "node_modules/.bin/jest"}, {"jest"}),
        ({"test": "cross-env NODE_ENV=test jest"}, {"jest"}),
        ({"test": "python3 -m pytest tests"}, {"pytest"}),
        ({"test": "bun run build"}, set()),
        ({"test": "echo 'jest'"}, set()),
        ({"test": "tsc && vitest run 'unbalanced"}, {"vitest"}),
        ({"test": 5}, set()),
    ],
)
def test_test_script_parsing(scripts: dict[str, object], expected: set[str]) -> None:
    assert set(runners_in_test_script({"scripts": scripts})) == expected


@pytest.mark.parametrize(
    ("files", "source"),
    [
        ({"test_math.py": "def test_x(): pass\n"}, "test_math.py"),
        ({"tests/test_a.py": "", "lib.py": ""}, "tests/test_a.py"),
        ({"test/util_test.py": ""}, "test/util_test.py"),
    ],
)
def test_a_bare_pytest_repo_is_pytest(
    tmp_path: Path, files: dict[str, str | dict[str, object]], source: str
) -> None:
    root = tree(tmp_path, files)
    assert detect_runner(root).name == "pytest"
    assert [(d.runner, d.evidence, d.source) for d in detections(root)] == [
        ("pytest", Evidence.TEST_FILES, source)
    ]


def test_test_files_are_the_weakest_evidence(tmp_path: Path) -> None:
    # A JS project with a stray test_*.py helper is still the JS runner's.
    root = tree(tmp_path, {"package.json": pkg(dev=("jest",)), "test_helper.py": ""})
    assert detect_runner(root).name == "jest"


def test_linked_or_misnamed_files_are_not_test_files(tmp_path: Path) -> None:
    root = tree(tmp_path, {"helpers.py": "", "tests/conf.py": "", "src/test_x.py": ""})
    (root / "test_link.py").symlink_to(root / "helpers.py")
    with pytest.raises(ConfigError, match="no test runner"):
        detect_runner(root)
