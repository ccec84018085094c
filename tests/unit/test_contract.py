"""The shared contract: every place that names a runner, a timeout or a report path uses it."""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

import pytest
import yaml

from verify_pr import contract, options
from verify_pr.contract import (
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    RUNNER_CHOICES,
    RunnerName,
    check_report_path,
    new_report_path,
)
from verify_pr.errors import ConfigError, InputRefused
from verify_pr.github.settings import VerifySettings
from verify_pr.models.sandbox import SandboxResult
from verify_pr.runners.detect import all_runners, detect_runner
from verify_pr.verify import cli
from verify_pr.verify.runs.suite import plan_custom

ROOT = Path(__file__).resolve().parents[2]
ENV = {"INPUT_IMAGE": "img:1", "GITHUB_WORKSPACE": "/tmp", "RUNNER_TEMP": "/tmp"}


def _runner_choices(parser: argparse.ArgumentParser, mode: str) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    (runner,) = [a for a in sub.choices[mode]._actions if a.dest == "runner"]
    assert runner.choices is not None
    return set(runner.choices)


def test_runner_names_come_from_one_enum() -> None:
    names = {name.value for name in RunnerName}
    assert len(names) == 5  # positive control: the enum is not empty or partial
    assert set(RUNNER_CHOICES) == names | {contract.AUTO}
    for mode in ("run", "compare"):
        assert _runner_choices(cli.build_parser(), mode) == set(RUNNER_CHOICES)
    assert {runner.name for runner in all_runners()} == names
    accepted = {
        choice
        for choice in [*RUNNER_CHOICES, "nose", "Pytest", "pytest-xdist"]
        if _settings_accept(choice)
    }
    assert accepted == set(RUNNER_CHOICES)


def _settings_accept(runner: str) -> bool:
    try:
        VerifySettings.from_env({**ENV, "INPUT_RUNNER": runner})
    except ConfigError:
        return False
    return True


def _choices(parser: argparse.ArgumentParser, mode: str, dest: str) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    (action,) = [a for a in sub.choices[mode]._actions if a.dest == dest]
    assert action.choices is not None
    return set(action.choices)


def test_custom_report_formats_come_from_one_enum() -> None:
    formats = {fmt.value for fmt in contract.CustomFormat}
    assert formats == {"junit", "jest-json"}  # the formats a project's own command may write
    for mode in ("run", "compare"):
        assert _choices(cli.build_parser(), mode, "report_format") == formats
    accepted = {
        fmt for fmt in [*formats, "", "xml", "JUNIT", "vitest-json"] if _settings_accept_format(fmt)
    }
    assert accepted == formats | {""}
    with pytest.raises(InputRefused):
        plan_custom("x {report}", "vitest-json")
    assert {plan_custom("x {report}", fmt).parse_name for fmt in formats} == formats


def _settings_accept_format(fmt: str) -> bool:
    env = {**ENV, "INPUT_REPORT-FORMAT": fmt, "INPUT_COMMAND": "x {report}" if fmt else ""}
    try:
        VerifySettings.from_env(env)
    except ConfigError:
        return False
    return True


def test_settings_name_every_runner_choice_when_refusing() -> None:
    with pytest.raises(ConfigError) as info:
        VerifySettings.from_env({**ENV, "INPUT_RUNNER": "nose"})
    assert str(info.value.message) == (
        "--runner must be 'auto', 'pytest', 'jest', 'vitest', 'bun' or 'go', got 'nose'"
    )


def test_every_runner_name_can_be_chosen(tmp_path: Path) -> None:
    for name in RunnerName:
        assert detect_runner(tmp_path, name.value).name is name
    with pytest.raises(ConfigError):
        detect_runner(tmp_path, "nose")


def test_the_timeout_default_and_bound_are_the_contracts() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["inputs"]["timeout"]["default"] == str(DEFAULT_TIMEOUT_S)
    assert f"1 to {MAX_TIMEOUT_S}" in action["inputs"]["timeout"]["description"]
    settings = VerifySettings.from_env(ENV)
    assert settings.timeout == DEFAULT_TIMEOUT_S
    assert _settings_refuse_timeout(MAX_TIMEOUT_S + 1)
    assert not _settings_refuse_timeout(MAX_TIMEOUT_S)
    ns = cli.build_parser().parse_args(["run", "--repo", ".", "--image", "i"])
    assert ns.timeout == str(DEFAULT_TIMEOUT_S)
    bound = SandboxResult.model_json_schema()["properties"]["timeout_s"]["maximum"]
    assert bound == MAX_TIMEOUT_S


def test_the_flake_runs_default_and_bound_are_the_contracts() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["inputs"]["flake-runs"]["default"] == str(contract.DEFAULT_FLAKE_RUNS)
    assert f"0 to {contract.MAX_FLAKE_RUNS}" in action["inputs"]["flake-runs"]["description"]
    assert VerifySettings.from_env(ENV).flake_runs == contract.DEFAULT_FLAKE_RUNS
    with pytest.raises(ConfigError):
        VerifySettings.from_env({**ENV, "INPUT_FLAKE-RUNS": str(contract.MAX_FLAKE_RUNS + 1)})
    VerifySettings.from_env({**ENV, "INPUT_FLAKE-RUNS": str(contract.MAX_FLAKE_RUNS)})
    assert options.FLAKE_RUNS_RANGE == (0, contract.MAX_FLAKE_RUNS)


def _settings_refuse_timeout(seconds: int) -> bool:
    try:
        VerifySettings.from_env({**ENV, "INPUT_TIMEOUT": str(seconds)})
    except ConfigError:
        return True
    return False


def test_built_report_paths_always_pass_the_validator() -> None:
    rng = random.Random(9)
    letters = "abcdefghijklmnopqrstuvwxyz"
    seen = set()
    for _ in range(2000):
        suffix = "." + "".join(rng.choice(letters) for _ in range(rng.randint(1, 8)))
        path = new_report_path(suffix)
        assert check_report_path(path, random=True) == path
        assert check_report_path(path, random=False) == path
        assert path.endswith(suffix)
        seen.add(path)
    assert len(seen) == 2000  # fresh randomness each time


@pytest.mark.parametrize("suffix", ["xml", ".XML", ".xml; rm", ".", ".abcdefghi", "/x"])
def test_the_builder_refuses_a_bad_suffix(suffix: str) -> None:
    with pytest.raises(InputRefused):
        new_report_path(suffix)


def test_a_plain_name_is_not_a_random_one() -> None:
    """The random rule is what keeps a PR from pre-planting the report: ``random`` enforces it."""
    assert check_report_path("/work/report.xml", random=False) == "/work/report.xml"
    with pytest.raises(InputRefused, match="random token"):
        check_report_path("/work/report.xml", random=True)


@pytest.mark.parametrize("value", ["/work/report.xml", "/work/r-1.json", "/work/a.b_c"])
def test_report_paths_accepted(value: str) -> None:
    assert check_report_path(value, random=False, what="--report") == value


@pytest.mark.parametrize(
    "value",
    [
        "report.xml",
        "/tmp/r.xml",
        "/work/",
        "/work/../etc/passwd",
        "/work/a/b.xml",
        "/work/.hidden",
        "/work/.verify-pr-wrapper",
        "/work/$HOME",
        "/work/~x",
        "/work/" + "a" * 129,
        "/work/a b",
        "/work/-x",
        "",
    ],
)
def test_report_paths_refused(value: str) -> None:
    with pytest.raises(InputRefused):
        check_report_path(value, random=False, what="--report")


def test_contract_holds_no_literal_the_others_redefine() -> None:
    """No module of the package spells the runner list, the report name or OUT's names again."""
    again = re.compile(
        r'\("auto", "pytest"|/vpr-report-|le=3600|default="600"|= 600\b|\(1, 3600\)|'
        r'= "(result\.json|output\.txt|report\.txt|verdict\.json|verify-pr-result\.json|'
        r'compare_summary\.md)"'
    )
    package = ROOT / "src" / "verify_pr"
    hits = [
        f"{path.relative_to(package)}: {match.group(0)}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "contract.py"
        for match in again.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not hits, hits
    # positive control: the pattern finds the contract's own definitions (six names, the
    # default timeout, the report name)
    assert len(again.findall((package / "contract.py").read_text(encoding="utf-8"))) >= 8
