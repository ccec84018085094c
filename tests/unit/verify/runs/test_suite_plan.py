"""A plan carries its runner and the stages' words as argv, joined for the shell in one place.

The command line each plan hands the sandbox (and the verdict file shows) is the runner's own
text followed by every word a stage added, each quoted once: a word from a report (a test id)
can never become shell syntax, and the line is what the plans built by string before gave.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from verify_pr.runners.registry import runner_named
from verify_pr.verify.runs.planner import Planner
from verify_pr.verify.runs.suite import SuitePlan, plan_custom
from verify_pr.verify.settings import SuiteSettings

PYTEST = runner_named("pytest")
SHELL = "python3 -m pytest --junitxml=/tmp/r.xml"


def test_the_words_follow_the_runner_text_each_quoted_once() -> None:
    plan = SuitePlan(
        PYTEST, SHELL, "/tmp/r.xml", "pytest", argv=("--continue-on-collection-errors",)
    )
    evil = "m.py::t'; rm -rf / #"
    rerun = plan.reporting_to("/tmp/s.xml").adding((evil,))
    assert rerun.shell == "python3 -m pytest --junitxml=/tmp/s.xml"
    assert rerun.argv == ("--continue-on-collection-errors", evil)
    # what the plans appended by string before: the compare's words, then the selection
    joined = f"{rerun.shell} --continue-on-collection-errors {shlex.quote(evil)}"
    assert rerun.command == joined
    assert shlex.split(rerun.command)[-1] == evil  # one word, whatever it holds
    # no words: the runner's text alone
    assert SuitePlan(PYTEST, SHELL, "/tmp/r.xml", "pytest").command == SHELL


def test_a_rerun_drops_the_probe_and_the_tracer_but_keeps_the_runner() -> None:
    plan = SuitePlan(PYTEST, SHELL, "/tmp/r.xml", "pytest", ("pkg",), "/tmp/c.json", ("-x",))
    rerun = plan.reporting_to("/tmp/s.xml")
    assert rerun.runner is PYTEST and rerun.parse_name == "pytest"
    assert (rerun.probed, rerun.coverage_path, rerun.argv) == ((), None, ("-x",))


def test_an_own_command_has_no_runner_and_is_named_custom() -> None:
    plan = plan_custom("sh run.sh {report}", "junit")
    assert plan.runner is None and plan.runner_name == "custom"
    assert plan.command == f"sh run.sh {plan.report_path}"


def test_the_planner_detects_on_base_once_and_adds_the_compare_words(tmp_path: Path) -> None:
    (tmp_path / "test_m.py").write_text("def test_a():\n    pass\n")
    planner = Planner.on_base(SuiteSettings("verify-pr-python:local"), tmp_path)
    assert planner.runner is not None and planner.runner.name == "pytest"
    other = tmp_path / "other"
    other.mkdir()  # no test file: the base's runner still plans it, nothing is detected there
    plan = planner.plan(other)
    assert plan.runner is planner.runner
    assert plan.argv == planner.runner.compare_args
    assert plan.command.endswith(" " + shlex.join(planner.runner.compare_args))
    own = Planner.on_base(
        SuiteSettings("img", command="sh t.sh {report}", report_format="junit"), other
    )
    assert own.runner is None and own.plan(other).command.startswith("sh t.sh /")
