"""The verdict rules, one function: PASS needs every piece of evidence, FAIL needs failure
evidence, and everything else is NOT PROVEN with a reason a maintainer understands."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import assert_never

from verify_pr.contract import MAX_REPORT_BYTES
from verify_pr.models.report import EXECUTED, FAILING, RedFlag, TestReport, clean_text
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict
from verify_pr.runners.config_code import REPLACES_RUNNER
from verify_pr.verify.runs.missing_deps import MissingModule
from verify_pr.verify.runs.missing_deps import reasons as missing_reasons
from verify_pr.verify.runs.output_errors import first_error_line, missing_module

_MISSING_TOOL = re.compile(
    rb"(not found|No module named|ModuleNotFoundError|Cannot find module|command not found)"
)
_MISSING_MODULE = re.compile(
    rb"[^\n]*(No module named|ModuleNotFoundError|Cannot find module|Cannot find package)[^\n]*"
)
_LOAD_FLAGS = frozenset({RedFlag.COLLECTION_ERROR, RedFlag.LOAD_ERROR})
DEPENDENCIES_HINT = (
    "the image lacks the runner or the repo's dependencies: dependencies must already be in "
    "the image (verify-pr never installs them)"
)


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    reasons: list[str] = field(default_factory=list)


def judge(
    sandbox: SandboxResult,
    output: bytes,
    report: TestReport | None,
    report_error: str | None,
    tamper: list[str],
    missing: list[MissingModule] | None = None,
) -> Judgement:
    """Decide from the sandbox result and the parsed report (None when unusable).

    ``missing`` (from :func:`missing_deps.missing_modules`) is set when every failing test of
    the report is a test file that could not import a module the tree does not hold."""
    match sandbox.status:
        case RunStatus.BLOCKED:
            return Judgement(Verdict.BLOCKED, [f"the sandbox was blocked: {sandbox.detail}"])
        case RunStatus.TIMEOUT:
            return _not_proven(f"the suite timed out after {sandbox.timeout_s} s", tamper)
        case RunStatus.ERROR:
            return _not_proven(f"the sandboxed run did not complete: {sandbox.detail}", tamper)
        case RunStatus.COMPLETED:
            pass
        case _ as unreachable:
            assert_never(unreachable)
    if report is None:
        return _no_report(sandbox, output, report_error, tamper)
    return _from_report(sandbox, report, output, tamper, missing)


def _not_proven(reason: str, tamper: list[str], *more: str) -> Judgement:
    return Judgement(Verdict.NOT_PROVEN, [reason, *more, *_tamper_reasons(tamper)])


def _tamper_reasons(tamper: list[str]) -> list[str]:
    return [f"the repo changes its own harness: {signal}" for signal in tamper]


def _no_report(
    sandbox: SandboxResult, output: bytes, error: str | None, tamper: list[str]
) -> Judgement:
    if error is not None:
        return _not_proven(f"the report could not be trusted: {error}", tamper)
    why = {
        ReportStatus.MISSING: "the runner wrote no report at the random path",
        ReportStatus.NOT_REGULAR: "the report path was not a regular file",
        ReportStatus.TOO_LARGE: f"the report was over {MAX_REPORT_BYTES // (1024 * 1024)} MiB",
        ReportStatus.STALE: "a file already stood at the report path before the run",
    }.get(sandbox.report, f"no report came back ({sandbox.report})")
    extra = _load_failure(output)
    if sandbox.exit_code in (126, 127) or _MISSING_TOOL.search(output[-65536:]):
        extra.append(DEPENDENCIES_HINT)
    return _not_proven(why, tamper, *extra)


def _load_failure(output: bytes) -> list[str]:
    """Why the suite did not load, from the output: the missing module, else the first error."""
    module = missing_module(output)
    if module is not None:
        return [f"the module {module!r} could not be imported: the image must hold it"]
    line = first_error_line(output)
    return [f"the runner's first error: {line}"] if line is not None else []


def _from_report(
    sandbox: SandboxResult,
    report: TestReport,
    output: bytes,
    tamper: list[str],
    absent: list[MissingModule] | None,
) -> Judgement:
    worst = report.worst_by_id()
    failing = sorted(i for i, s in worst.items() if s in FAILING)
    executed = sum(1 for s in worst.values() if s in EXECUTED)
    if failing and absent and sandbox.exit_code != 0:
        # Only load failures, each of a module the tree does not hold: the image lacks a
        # dependency, which says nothing about the PR (see missing_deps for why this cannot
        # hide a test that ran and failed). A runner that exited 0 over them was tampered
        # with: that stays FAIL below.
        said, *more = missing_reasons(absent)
        return _not_proven(said, tamper, *more)
    if failing:
        reasons = [f"{len(failing)} test(s) failed or errored, e.g. {failing[0][:200]}"]
        if sandbox.exit_code == 0:
            reasons.append("the runner exited 0 despite failures: its exit code was changed")
        missing = _MISSING_MODULE.search(output[-65536:])
        if missing is not None and _LOAD_FLAGS & set(report.red_flags):
            # A test file could not import a module: the PR's own, or a dependency the image
            # lacks. Still failure evidence, but say which it may be.
            line = clean_text(missing.group().decode("utf-8", "replace").strip(), 200)
            reasons += [f"a test file could not be loaded: {line}", DEPENDENCIES_HINT]
        elif _LOAD_FLAGS & set(report.red_flags) and (first := first_error_line(output)):
            reasons.append(f"a test file could not be loaded: {first}")
        return Judgement(Verdict.FAIL, reasons + _tamper_reasons(tamper))
    if report.red_flags:
        flags = ", ".join(str(flag) for flag in report.red_flags)
        extra = _load_failure(output) if _LOAD_FLAGS & set(report.red_flags) else []
        if _MISSING_TOOL.search(output[-65536:]):
            extra.append(DEPENDENCIES_HINT)
        return _not_proven(f"the report shows red flags: {flags}", tamper, *extra)
    if executed == 0:
        return _not_proven(
            "no test was executed (zero tests, or all skipped or expected to fail)", tamper
        )
    if sandbox.exit_code != 0:
        return _not_proven(
            f"the runner exited {sandbox.exit_code} but its report shows no failure: "
            "exit code and report disagree",
            tamper,
        )
    replaced = [s for s in tamper if s.startswith(REPLACES_RUNNER)]
    if replaced:
        # Not the image's runner that ran, or code nobody can read: its pass proves nothing.
        return _not_proven(
            f"{len(replaced)} part(s) of the runner came from the tree, not the image: "
            "a pass cannot be vouched for (run on a clean checkout without them)",
            tamper,
        )
    reasons = [f"{executed} test(s) executed, none failed; runner exited 0"]
    return Judgement(Verdict.PASS, reasons + _tamper_reasons(tamper))
