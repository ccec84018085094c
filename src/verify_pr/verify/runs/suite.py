"""Run one suite through the sandbox with a report at a fresh random path, and judge it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from verify_pr.contract import CUSTOM_RUNNER, CustomFormat, new_report_path
from verify_pr.errors import InputRefused, ReportError
from verify_pr.models.report import FAILING, ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.verdict import (
    MAX_REASONS,
    REASON_MAX_CHARS,
    VERDICT_MAX_TESTCASES,
    Verdict,
    VerdictFile,
)
from verify_pr.reports._common import ReportSource
from verify_pr.runners.base import Argv, ExpectedFailures, Runner, with_args
from verify_pr.sandbox.resources import DEFAULT_RESOURCES, Resources
from verify_pr.sandbox.run import SandboxRequest, SandboxRun, run_sandbox
from verify_pr.verify.runs import expected_failures
from verify_pr.verify.runs.loaderrors import load_error_texts
from verify_pr.verify.runs.missing_deps import MissingModule, missing_modules
from verify_pr.verify.runs.rules import Judgement, judge

REPORT_PLACEHOLDER = "{report}"


@dataclass(frozen=True)
class SuitePlan:
    """What to run: a detected runner's command, or the caller's with {report} filled in.

    ``shell`` is the runner's own text (its import probes, environment and the runner: a
    script the runner builds) or the caller's command; ``argv`` are the words the stages add
    (the compare's arguments, a selection by id), quoted for the shell in one place,
    ``command``: the line the sandbox runs and the verdict file shows."""

    runner: Runner | None  # None: the caller's own command, which no runner stands behind
    shell: str
    report_path: str
    parse_name: str  # a runner name, or a CustomFormat value
    probed: tuple[str, ...] = ()  # the tree's packages the import probe reports on
    coverage_path: str | None = None  # the tracer's data, returned as coverage.txt
    argv: Argv = ()

    @property
    def command(self) -> str:
        """``shell`` followed by ``argv``, each word quoted (``runners.base.with_args``)."""
        return with_args(self.shell, self.argv)

    @property
    def runner_name(self) -> str:
        """The runner as the verdict file names it: ``custom`` for an own command."""
        return CUSTOM_RUNNER if self.runner is None else self.runner.name

    def adding(self, argv: Argv) -> SuitePlan:
        """This plan with ``argv`` after the words it already has."""
        return replace(self, argv=(*self.argv, *argv))

    def reporting_to(self, path: str) -> SuitePlan:
        """This plan's runner and words writing the report to ``path`` (a re-run's own), with
        neither the import probe's packages nor a tracer: a run by id of some tests."""
        shell = self.shell.replace(self.report_path, path)
        return SuitePlan(self.runner, shell, path, self.parse_name, argv=self.argv)


@dataclass(frozen=True)
class SuiteOutcome:
    verdict: VerdictFile
    run: SandboxRun
    report: TestReport | None = None  # the parsed report, when there was a usable one
    tamper: tuple[str, ...] = ()  # the runners' tamper signals for this tree


def plan_detected(tree: Path, runner_choice: str) -> SuitePlan:
    from verify_pr.runners.detect import detect_runner

    return plan_for(tree, detect_runner(tree, runner_choice))


def plan_for(tree: Path, runner: Runner) -> SuitePlan:
    """``runner``'s plan for ``tree``, with a report at a fresh random path."""
    suffix = ".xml" if runner.report_format == "junit" else ".json"
    path = new_report_path(suffix)
    # the command may depend on the tree (pytest's src layout, the import probes)
    planned = runner.plan(path, tree)
    return SuitePlan(runner, planned.command, path, runner.name, planned.probed)


def plan_custom(command: str, report_format: str) -> SuitePlan:
    try:
        fmt = CustomFormat(report_format)
    except ValueError:
        raise InputRefused("--report-format must be junit or jest-json") from None
    if REPORT_PLACEHOLDER not in command:
        raise InputRefused("--command must contain {report}, replaced by the report path")
    path = new_report_path(".xml" if fmt is CustomFormat.JUNIT else ".json")
    return SuitePlan(None, command.replace(REPORT_PLACEHOLDER, path), path, fmt.value)


def _parse(plan: SuitePlan, data: ReportSource) -> TestReport:
    from verify_pr.reports.jest_json import parse_jest_json
    from verify_pr.reports.junit import parse_junit

    if plan.parse_name == CustomFormat.JUNIT:
        return parse_junit(data)
    if plan.parse_name == CustomFormat.JEST_JSON:
        return parse_jest_json(data)
    if plan.runner is not None:
        return plan.runner.parse(data)
    raise ReportError(f"no parser for {plan.parse_name}")


def tamper_signals(tree: Path, plan: SuitePlan, output: bytes = b"") -> list[str]:
    """The runners' signals for ``tree``, and what ``output`` (a run of ``plan``) read from
    the image: a src layout's modules that stand in for the ones pytest loads at startup."""
    signals = _tamper(tree, plan)
    runner = _runner(plan)
    if runner is not None:
        signals += runner.runtime_signals(tree, output)
    return list(dict.fromkeys(signals))


def _runner(plan: SuitePlan) -> Runner | None:
    """The runner behind ``plan``'s command and report; None for an own command."""
    runner = plan.runner
    return runner if runner is not None and plan.parse_name == runner.name else None


def _tamper(tree: Path, plan: SuitePlan) -> list[str]:
    """The plan's runner's signals; every runner's under an own command (any could be in it)."""
    from verify_pr.runners.detect import all_runners

    signals: list[str] = []
    for runner in all_runners() if plan.runner is None else (plan.runner,):
        signals += runner.tamper_signals(tree)
    return list(dict.fromkeys(signals))


def listed_testcases(report: TestReport) -> tuple[TestCase, ...]:
    """The testcases verdict.json lists: every one up to the cap, else failures and errors
    first (what a maintainer acts on), then the rest in report order."""
    cases = report.testcases
    if len(cases) <= VERDICT_MAX_TESTCASES:
        return cases
    bad = (TestStatus.FAILED, TestStatus.ERROR)
    first = [c for c in cases if c.status in bad]
    rest = [c for c in cases if c.status not in bad]
    return tuple((first + rest)[:VERDICT_MAX_TESTCASES])


def _check_imports(judgement: Judgement, plan: SuitePlan, output: bytes) -> Judgement:
    """A verdict on the suite needs the tests to have imported the tree's own packages."""
    from verify_pr.runners.pytest.tree import outside_the_tree

    if judgement.verdict not in (Verdict.PASS, Verdict.FAIL) or not plan.probed:
        return judgement
    outside = outside_the_tree(output, list(plan.probed))
    if not outside:
        return judgement
    return Judgement(Verdict.NOT_PROVEN, [*outside, *judgement.reasons])


def _missing_modules(
    tree: Path, plan: SuitePlan, run: SandboxRun, report: TestReport | None
) -> list[MissingModule] | None:
    """The dependencies the image lacks, when they are the run's only failures."""
    if report is None or not any(c.status in FAILING for c in report.testcases):
        return None
    # pytest keeps a collection error's real text (the module's name) only in the report's
    # element body: read it again for that.
    texts = load_error_texts(run.report) if report.format is ReportFormat.JUNIT else {}
    return missing_modules(report, tree, texts)


def run_suite(
    tree: Path,
    plan: SuitePlan,
    image: str,
    timeout_s: int,
    max_output: int,
    resources: Resources = DEFAULT_RESOURCES,
) -> SuiteOutcome:
    command = plan.command  # argv joined to the runner's text, once, here
    request = SandboxRequest(
        tree,
        command,
        image,
        timeout_s,
        max_output,
        plan.report_path,
        resources,
        coverage_path=plan.coverage_path,
    )
    run = run_sandbox(request)
    report: TestReport | None = None
    report_error: str | None = None
    if run.report is not None:
        try:
            report = _parse(plan, run.report)
        except ReportError as exc:
            report_error = exc.diagnostics()
    runner = _runner(plan)
    if report is not None and (
        runner is None or runner.expected_failures is not ExpectedFailures.REPORT
    ):
        # pytest's report says it itself (the bootstrap's property); jest's and vitest's do
        # through our recorders, and the lines are read as well (a union); bun's cannot
        report = expected_failures.mark(report, tree)
    tamper = tamper_signals(tree, plan, run.output)
    missing = _missing_modules(tree, plan, run, report)
    judgement = judge(run.result, run.output, report, report_error, tamper, missing)
    judgement = _check_imports(judgement, plan, run.output)
    reasons = tuple(r[:REASON_MAX_CHARS] for r in judgement.reasons[:MAX_REASONS])
    verdict = VerdictFile(
        verdict=judgement.verdict,
        reasons=reasons,
        runner=plan.runner_name,
        runner_version=report.runner_version if report else None,
        command=command[:4096],
        totals=report.totals if report else None,
        testcases=listed_testcases(report) if report else (),
        sandbox=run.result,
    )
    return SuiteOutcome(verdict, run, report, tuple(tamper))
