"""The registry gives each runner by name (None for an own command), and each runner answers
the protocol's questions, "cannot" included, as verify/ relied on before it asked them."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.contract import RunnerName
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.runners.base import (
    ExpectedFailures,
    Runner,
    RunnerDefaults,
    TestFiles,
    validate_report_path,
    with_args,
)
from verify_pr.runners.detect import all_runners
from verify_pr.runners.registry import runner_named

REPORT = "/work/vpr-report-0123456789abcdef0123456789abcdef.xml"


def _case(file: str, name: str, classname: str | None = None) -> TestCase:
    return TestCase.build(
        name=name, classname=classname, file=file, line=1, status=TestStatus.FAILED
    )


def test_every_runner_is_found_by_its_name_and_an_own_command_by_none() -> None:
    assert [r.name for r in all_runners()] == list(RunnerName)
    for name in RunnerName:
        found = runner_named(name.value)
        assert found is not None and found.name is name
    assert runner_named("custom") is None
    assert runner_named("") is None


@pytest.mark.parametrize(
    ("name", "family", "failures", "repeats", "traced", "isolates", "only_tests"),
    [
        ("pytest", TestFiles.PYTHON, ExpectedFailures.REPORT, False, True, False, False),
        ("jest", TestFiles.JAVASCRIPT, ExpectedFailures.RECORDER, True, True, True, True),
        ("vitest", TestFiles.JAVASCRIPT, ExpectedFailures.RECORDER, False, True, False, False),
        ("bun", TestFiles.JAVASCRIPT, ExpectedFailures.CANNOT, False, False, False, False),
    ],
)
def test_each_runner_says_what_it_can_and_cannot(
    name: str,
    family: TestFiles,
    failures: ExpectedFailures,
    repeats: bool,
    traced: bool,
    isolates: bool,
    only_tests: bool,
) -> None:
    runner = runner_named(name)
    assert runner is not None
    python = family is TestFiles.PYTHON
    case = _case("tests/test_a.py", "test_x", "tests.test_a") if python else _case("a.test.js", "x")
    assert runner.test_files is family
    assert runner.compares  # the four judged by compare today
    assert runner.expected_failures is failures
    assert runner.isolates_files is isolates
    assert runner.tests_only_in_test_files is only_tests
    assert runner.select(case) is not None  # every runner of ours selects by id
    assert (runner.select_repeated([case], 2) is not None) is repeats
    coverage = runner.coverage()
    assert (coverage.instrument is not None) is traced
    assert bool(coverage.missing) is not traced  # "cannot" says why


def test_the_defaults_say_cannot_to_everything_a_new_runner_has_not_said() -> None:
    class Minimal(RunnerDefaults):
        def command(self, report_path: str) -> str:
            return f"run --report {validate_report_path(report_path)}"

    runner = Minimal()
    case = _case("t.go", "TestX")
    assert runner.plan(REPORT, Path()).command == f"run --report {REPORT}"
    assert runner.plan(REPORT, Path()).probed == ()
    assert runner.select(case) is None
    assert runner.select_batch([case]) is None
    assert runner.select_repeated([case], 3) is None
    assert runner.collect_command("run") is None
    assert runner.collected_message() is None
    assert runner.coverage().instrument is None
    assert runner.expected_failures is ExpectedFailures.CANNOT
    assert runner.compare_args == () and runner.harness_names == ()
    assert not runner.compares


def test_go_compares_by_its_own_answers() -> None:
    """Issue 38 part 2: go selects by id (-run and the package), repeats by a process per
    repetition, and measures changed code with go's own -coverprofile over .go files."""
    runner = runner_named("go")
    assert runner is not None and runner.test_files is TestFiles.GO
    assert runner.compares and runner.isolates_files and runner.tests_only_in_test_files
    assert runner.select(_case("example.com/m", "TestX")) == ("-run", "^TestX$", "example.com/m")
    assert runner.select_repeated([_case("example.com/m", "TestX")], 2) is None
    coverage = runner.coverage()
    assert coverage.instrument is not None and coverage.suffixes == (".go",)


def test_argv_meets_the_shell_quoted_word_by_word() -> None:
    assert with_args("pytest", ()) == "pytest"
    assert with_args("pytest", ("--continue-on-collection-errors",)) == (
        "pytest --continue-on-collection-errors"
    )
    assert with_args("jest", ("-t", "^a b$", "--", "x;rm -rf /")) == (
        "jest -t '^a b$' -- 'x;rm -rf /'"
    )


def test_the_registered_runners_satisfy_the_protocol() -> None:
    runners: tuple[Runner, ...] = all_runners()  # mypy checks each against the protocol
    assert all(isinstance(r, RunnerDefaults) for r in runners)
