"""A compare's settings are read from the flags once, at the entry, and travel down whole as one
``CompareSettings``: what ``run_compare`` receives is exactly what the flags said, whether
they came from a person's command line or from the action's inputs."""

from __future__ import annotations

import ast
import json
from dataclasses import fields
from pathlib import Path

import pytest

from tests.git_helpers import commit, init_repo
from tests.unit.helpers import PACKAGE, imports
from verify_pr.action.commands import HOST_PYTHON, compare_argv
from verify_pr.github.settings import VerifySettings
from verify_pr.sandbox.resources import Resources
from verify_pr.verify import cli, compare_run
from verify_pr.verify.settings import CompareSettings, Limits, SuiteSettings


class Started(Exception):
    """Raised by the stand-in for run_compare: the settings reached it."""


@pytest.fixture
def received(monkeypatch: pytest.MonkeyPatch) -> list[tuple[compare_run.CompareRequest, object]]:
    got: list[tuple[compare_run.CompareRequest, object]] = []

    def stop(request: compare_run.CompareRequest, settings: CompareSettings) -> None:
        got.append((request, settings))
        raise Started

    monkeypatch.setattr(compare_run, "run_compare", stop)
    return got


@pytest.fixture
def shas(tmp_path: Path) -> tuple[Path, str, str]:
    repo = init_repo(tmp_path / "src")
    base = commit(repo, {"m.py": "x = 1\n"})
    head = commit(repo, {"m.py": "x = 2\n"})
    return repo, base, head


def _compare(argv: list[str], received: list[tuple[compare_run.CompareRequest, object]]) -> object:
    with pytest.raises(Started):
        cli._main(argv)
    (request, settings) = received[-1]
    assert {f.name for f in fields(request)} == {"git_dir", "base_sha", "head_sha"}
    return settings


def test_the_flags_become_one_settings_object(
    shas: tuple[Path, str, str],
    tmp_path: Path,
    received: list[tuple[compare_run.CompareRequest, object]],
) -> None:
    repo, base, head = shas
    argv = ["compare", "--git", str(repo), "--base", base, "--head", head, "--image", "img:1"]
    argv += ["--out", str(tmp_path / "out"), "--runner", "pytest", "--timeout", "30"]
    argv += ["--max-output", "4096", "--cpus", "2", "--memory", "1g", "--flake-runs", "5"]
    strict = _compare([*argv, "--strict-harness"], received)
    expected_suite = SuiteSettings(
        "img:1", "pytest", None, None, Limits(30, 4096, Resources(2 * 10**9, 1024))
    )
    assert strict == CompareSettings(expected_suite, strict_harness=True, flake_runs=5)
    # control: without the flag, the same settings but strict_harness
    assert _compare(argv, received) == CompareSettings(expected_suite, False, 5)


def test_the_actions_inputs_reach_run_compare_as_the_same_settings(
    shas: tuple[Path, str, str],
    tmp_path: Path,
    received: list[tuple[compare_run.CompareRequest, object]],
) -> None:
    """The action's inputs, passed to the verifier as flags (``action.commands``), arrive as
    the settings the inputs said: nothing is read again on the way."""
    repo, base, head = shas
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": base}, "head": {"sha": head}}}))
    workspace = repo.parent
    settings = VerifySettings.from_env(
        {
            "INPUT_IMAGE": "img:1",
            "INPUT_MODE": "compare",
            "INPUT_PATH": repo.name,
            "INPUT_STRICT-HARNESS": "true",
            "INPUT_FLAKE-RUNS": "7",
            "INPUT_TIMEOUT": "45",
            "INPUT_CPUS": "1.5",
            "INPUT_MEMORY": "2g",
            "INPUT_COMMAND": "pytest --junitxml={report}",
            "INPUT_REPORT-FORMAT": "junit",
            "GITHUB_WORKSPACE": str(workspace),
            "RUNNER_TEMP": str(tmp_path),
            "GITHUB_EVENT_PATH": str(event),
        }
    )
    argv = compare_argv(settings, tmp_path / "out")
    assert argv[: len(HOST_PYTHON) + 1] == [*HOST_PYTHON, "verify_pr.verify.cli"]
    got = _compare(argv[len(HOST_PYTHON) + 1 :], received)
    limits = Limits(45, 1 << 20, Resources(15 * 10**8, 2048))
    suite = SuiteSettings("img:1", "auto", "pytest --junitxml={report}", "junit", limits)
    assert got == CompareSettings(suite, strict_harness=True, flake_runs=7)


def _reads_flags(source: str) -> bool:
    """Whether a module parses flags or holds a parsed command line (argparse, a Namespace)."""
    tree = ast.parse(source)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    return "argparse" in imports(source, ("verify_pr", "verify")) or "Namespace" in names | attrs


def test_nothing_below_the_entry_reads_a_flag() -> None:
    """The flags are read in verify/cli.py alone: every other module of the verifier is given
    the settings (never the command line) and cannot read a flag again."""
    below = [p for p in (PACKAGE / "verify").rglob("*.py") if p.name != "cli.py"]
    assert len(below) > 20  # positive control: the verifier's modules are there
    assert [p.name for p in below if _reads_flags(p.read_text(encoding="utf-8"))] == []
    # positive control: the entry itself is seen reading them
    assert _reads_flags((PACKAGE / "verify" / "cli.py").read_text(encoding="utf-8"))
