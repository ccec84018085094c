"""The test suite's own layout: shared helpers live in helper modules, never in test files;
the stages of scripts/test.sh select every test once, and every marker decides one.

A test module that imports another runs (and collects) the other's fixtures and state and ties
two files' edits together; what several files share lives in a ``helpers.py`` (or a named
``*_helpers.py``) instead. Every import statement counts, inside functions too.
"""

from __future__ import annotations

import ast
import itertools
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

TESTS = Path(__file__).resolve().parents[1]


def _test_module_imports(source: str) -> list[str]:
    """The ``tests.`` modules named ``test_*`` that a source file imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        found += [
            n for n in names if n.startswith("tests.") and n.split(".")[-1].startswith("test_")
        ]
    return found


def test_no_test_module_imports_another() -> None:
    files = [p for p in TESTS.rglob("*.py") if "fixtures" not in p.relative_to(TESTS).parts]
    assert len(files) > 100, "the scan found too few test files: it is broken"
    bad = [
        f"{path.relative_to(TESTS.parent)} imports {name}"
        for path in files
        for name in _test_module_imports(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "move what they share into a helpers.py:\n" + "\n".join(bad)


def test_the_scan_sees_an_import_of_a_test_module() -> None:
    """Positive control: top-level and in-function imports of a test module are seen; a
    helpers module and the package's own modules are not."""
    source = (
        "from tests.integration.test_corpus import fetch\n"
        "from tests.integration.helpers import verify_pr\n"
        "from verify_pr.verify import cli\n"
        "def f():\n    import tests.unit.verify.test_rules\n"
    )
    assert _test_module_imports(source) == [
        "tests.integration.test_corpus",
        "tests.unit.verify.test_rules",
    ]


# --- the stages of scripts/test.sh ---------------------------------------------------------

ROOT = TESTS.parent
TEST_SH = ROOT / "scripts" / "test.sh"


def _stages() -> list[tuple[str, str]]:
    """scripts/test.sh's STAGES, as (name, marker expression) in their order."""
    text = TEST_SH.read_text(encoding="utf-8")
    block = re.search(r"^STAGES=\(\n(.*?)^\)", text, re.MULTILINE | re.DOTALL)
    assert block, "scripts/test.sh has no STAGES=( ... ) list"
    rows = re.findall(r'^\s*"([^"|]+)\|([^"]+)"\s*$', block.group(1), re.MULTILINE)
    assert rows, block.group(1)
    return rows


def _declared_markers() -> list[str]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        lines = tomllib.load(f)["tool"]["pytest"]["ini_options"]["markers"]
    return [line.split(":", 1)[0].strip() for line in lines]


def _selects(expression: str, markers: frozenset[str]) -> bool:
    # pytest's own parser of -m, so the test reads the expressions exactly as the stages do
    return Expression.compile(expression).evaluate(lambda name, **_: name in markers)


def _every_marking(markers: list[str]) -> list[frozenset[str]]:
    return [
        frozenset(chosen)
        for size in range(len(markers) + 1)
        for chosen in itertools.combinations(markers, size)
    ]


def _not_once(stages: list[tuple[str, str]], markers: list[str]) -> list[str]:
    """Each marking of a test that runs in no stage or in more than one, with its stages."""
    found = []
    for marking in _every_marking(markers):
        chosen = [name for name, expression in stages if _selects(expression, marking)]
        if len(chosen) != 1:
            found.append(f"a test marked {sorted(marking)} runs in stages {chosen}")
    return found


def _dead(stages: list[tuple[str, str]], markers: list[str]) -> list[str]:
    """The markers that never change which stages run a test: no stage selects them."""

    def stages_of(marking: frozenset[str]) -> list[str]:
        return [name for name, expression in stages if _selects(expression, marking)]

    return [
        marker
        for marker in markers
        if all(
            stages_of(marking) == stages_of(marking | {marker})
            for marking in _every_marking(markers)
        )
    ]


def test_the_stages_select_every_test_once_and_the_first_needs_no_docker() -> None:
    stages = _stages()
    markers = _declared_markers()
    assert {"docker", "hostile", "slow"} <= set(markers), markers
    assert stages[0][1] == "not docker", "the first stage is the tier without Docker"
    assert not _not_once(stages, markers)


def test_every_declared_marker_decides_a_stage() -> None:
    """A marker CI never selects is not a marker."""
    assert not _dead(_stages(), _declared_markers())


def test_the_stage_checks_catch_an_overlap_a_gap_and_a_dead_marker() -> None:
    """Positive control: a docker-and-slow test run twice, a hostile test run nowhere, and a
    marker no stage names are each seen."""
    markers = ["docker", "hostile", "slow"]
    overlap = [("unit", "not docker"), ("docker", "docker and not hostile"), ("slow", "slow")]
    assert "a test marked ['docker', 'slow'] runs in stages ['docker', 'slow']" in _not_once(
        overlap, markers
    )
    assert "a test marked ['docker', 'hostile'] runs in stages []" in _not_once(overlap, markers)
    assert _dead([("unit", "not docker"), ("docker", "docker")], markers) == ["hostile", "slow"]


# --- scripts/test.sh's control flow, with every tool it calls stubbed ---------------------

_STUB_LIB = """
vpr_install_packages() { echo "setup-docker" >> "$LOG"; }
vpr_start_daemon() { :; }
vpr_stop_daemon() { :; }
vpr_venv() { :; }
"""
# pytest stand-in: logs its arguments, exits with the code the test set for its -m expression
_STUB_PYTHON = """#!/usr/bin/env bash
echo "pytest $*" >> "$LOG"
if [ "$3" = "-m" ]; then
  code=$(grep -F -x -A1 -- "$4" "$CODES" | tail -n 1)
  exit "${code:-0}"
fi
exit "${ARGS_CODE:-0}"
"""


def _run_test_sh(
    tmp_path: Path, *args: str, codes: dict[str, int] | None = None, args_code: int = 0
) -> tuple[int, list[str]]:
    root = tmp_path / "repo"
    (root / "scripts" / "lib").mkdir(parents=True)
    (root / "tests" / "images").mkdir(parents=True)
    (root / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(TEST_SH, root / "scripts" / "test.sh")
    (root / "scripts" / "lib" / "docker-daemon.sh").write_text(_STUB_LIB)
    (root / "scripts" / "audit_actions.sh").write_text("exit 0\n")
    (root / "tests" / "images" / "build.py").write_text("")
    for tool, body in {"python": _STUB_PYTHON, "ruff": "exit 0\n", "mypy": "exit 0\n"}.items():
        path = root / ".venv" / "bin" / tool
        path.write_text(body if body.startswith("#!") else "#!/bin/sh\n" + body)
        path.chmod(0o755)
    log, table = tmp_path / "log", tmp_path / "codes"
    log.write_text("")
    table.write_text("".join(f"{expr}\n{code}\n" for expr, code in (codes or {}).items()))
    env = {**os.environ, "LOG": str(log), "CODES": str(table), "ARGS_CODE": str(args_code)}
    done = subprocess.run(
        ["bash", str(root / "scripts" / "test.sh"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, log.read_text().splitlines()


def test_test_sh_runs_every_stage_in_order_with_docker_set_up_after_the_first(
    tmp_path: Path,
) -> None:
    code, log = _run_test_sh(tmp_path)
    stages = [f"pytest -m pytest -m {expression}" for _, expression in _stages()]
    assert code == 0
    assert log == [stages[0], "setup-docker", *stages[1:]]


@pytest.mark.parametrize("failing", [0, 1, -1])
@pytest.mark.parametrize("exit_code", [1, 5])
def test_a_failing_or_empty_stage_fails_test_sh_and_stops_it(
    tmp_path: Path, failing: int, exit_code: int
) -> None:
    stages = _stages()
    expression = stages[failing][1]
    code, log = _run_test_sh(tmp_path, codes={expression: exit_code})
    assert code == exit_code
    ran = [line.removeprefix("pytest -m pytest -m ") for line in log if line != "setup-docker"]
    assert ran == [e for _, e in stages][: stages.index(stages[failing]) + 1]
    assert ("setup-docker" in log) == (stages.index(stages[failing]) > 0)


@pytest.mark.parametrize("args_code", [0, 1, 5])
def test_test_sh_with_arguments_runs_one_pytest_with_exactly_them(
    tmp_path: Path, args_code: int
) -> None:
    code, log = _run_test_sh(tmp_path, "tests/unit", "-x", args_code=args_code)
    assert code == args_code
    assert log == ["setup-docker", "pytest -m pytest tests/unit -x"]
