"""Report paths and the exact commands each runner emits."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from verify_pr.contract import new_report_path
from verify_pr.errors import InputRefused
from verify_pr.runners.base import validate_report_path
from verify_pr.runners.bun.runner import BunRunner
from verify_pr.runners.detect import all_runners
from verify_pr.runners.jest.runner import JestRunner
from verify_pr.runners.node.failing_recorder import (
    jest_install,
    vitest_install,
    with_jest_recorder,
    with_vitest_recorder,
)
from verify_pr.runners.pytest.runner import (
    PYTEST_MAIN,
    PYTHON,
    PYTHON_IMAGE_CACHES,
    PytestRunner,
)
from verify_pr.runners.vitest.runner import VitestRunner

GOOD = "/work/vpr-report-0123456789abcdef0123456789abcdef.xml"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_new_report_path_is_random_and_valid() -> None:
    a, b = new_report_path(".xml"), new_report_path(".xml")
    assert a != b
    assert validate_report_path(a) == a
    with pytest.raises(InputRefused):
        new_report_path("xml; rm")


@pytest.mark.parametrize(
    "path",
    [
        "/work/$HOME/r0123456789abcdef.xml",
        "/work/~/r0123456789abcdef.xml",
        "~/r0123456789abcdef.xml",
        "/tmp/r0123456789abcdef.xml",
        "work/r0123456789abcdef.xml",
        "/work/../etc/r0123456789abcdef.xml",
        "/work/./r0123456789abcdef.xml",
        "/work//r0123456789abcdef.xml",
        "/work/a b0123456789abcdef.xml",
        "/work/r0123456789abcdef.xml;id",
        "/work/r`id`0123456789abcdef.xml",
        "/work/report.xml",
        "/work/",
        "",
        "/work/" + "a" * 200 + "0123456789abcdef",
    ],
)
def test_bad_report_paths_are_refused(path: str) -> None:
    with pytest.raises(InputRefused):
        validate_report_path(path)


def test_dollar_and_tilde_say_why() -> None:
    with pytest.raises(InputRefused, match="expands"):
        validate_report_path("/work/$x0123456789abcdef")
    with pytest.raises(InputRefused, match="home"):
        validate_report_path("/work/~x0123456789abcdef")


def test_exact_commands() -> None:
    # the full literal lives once, in the fixture generator (checked against this below)
    assert PytestRunner().command(GOOD) == (
        f"{PYTHON_IMAGE_CACHES} -c '{PYTEST_MAIN}' -p no:cacheprovider --junitxml={GOOD} "
        "-o junit_family=xunit1"
    )
    assert PYTHON == "python3 -P -s -B -X pycache_prefix=/tmp/vpr-pycache"
    assert PYTHON_IMAGE_CACHES == "python3 -P -s -B"
    assert JestRunner().command(GOOD) == (
        f"{jest_install()} && jest --ci --json --outputFile={GOOD} --testLocationInResults "
        "--testRunner=/tmp/verify-pr-jest-runner.js"
    )
    assert VitestRunner().command(GOOD) == (
        f"{vitest_install()} && vitest run --configLoader runner --reporter=default "
        """--reporter='data:text/javascript,export{default}from"file:///tmp/verify-pr-vitest-"""
        f"""reporter.mjs"' --outputFile.json={GOOD} --includeTaskLocation"""
    )
    assert BunRunner().command(GOOD) == f"bun test --reporter=junit --reporter-outfile={GOOD}"


@pytest.mark.parametrize("runner", all_runners(), ids=lambda r: r.name)
def test_every_command_validates_the_path(runner: PytestRunner) -> None:
    with pytest.raises(InputRefused):
        runner.command("/work/$(id)0123456789abcdef")


def test_fixture_generator_runs_the_same_commands() -> None:
    spec = importlib.util.spec_from_file_location("gen", FIXTURES / "generate_reports.py")
    assert spec is not None
    assert spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen"] = gen  # dataclasses look their module up there
    try:
        spec.loader.exec_module(gen)
    finally:
        del sys.modules["gen"]
    by_name = {r.name: r for r in all_runners()}
    mains = [job for job in gen.JOBS if not job.variant]
    # go's sample stream is a real run of a fixture module (tests/fixtures/go-json)
    assert {job.runner for job in mains} == set(by_name) - {"go"}
    # the generator runs on a host where /tmp resolves no runner package: it runs verify-pr's
    # commands without the expected-failure recorder (test_failing_recorder runs it for real)
    recorder = {"jest": with_jest_recorder, "vitest": with_vitest_recorder}
    for job in mains:
        add = recorder.get(job.runner, lambda command: command)
        assert by_name[job.runner].command(GOOD) == add(job.command.format(report=GOOD))


@pytest.mark.parametrize("runner", all_runners(), ids=lambda r: r.name)
def test_parse_uses_the_runner_format(runner: PytestRunner) -> None:
    sample = {
        "pytest": "junit/pytest-pass/report.xml",
        "jest": "jest-json/jest-pass/report.json",
        "vitest": "jest-json/vitest-pass/report.json",
        "bun": "junit/bun-pass/report.xml",
        "go": "go-json/go-pass/report.json",  # go 1.27.3 on tests/fixtures/go/pass
    }[runner.name]
    report = runner.parse((FIXTURES / sample).read_bytes())
    assert report.format is runner.report_format
    assert report.totals.passed > 0
