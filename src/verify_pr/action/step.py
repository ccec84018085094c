"""The verify step: refuse credentials, launch the verifier, read its verdict, report it.

The verifier runs in a child process (``commands``); its messages and the check's output are
untrusted text for the log (``outputs.print_untrusted``). A verifier exit code that is not a
verdict's, or a verdict file that is missing, invalid or disagrees with the exit code, is
``Crashed``: the step fails without a verdict. The verifier's codes and the verdicts they stand
for are ``exit_codes``' tables; the step's own codes are ``exit_codes.StepExit``.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TextIO, TypeVar, assert_never

from pydantic import BaseModel, ValidationError

from verify_pr.action import forward
from verify_pr.action.commands import compare_argv, verifier_argv
from verify_pr.action.outputs import (
    compare_status,
    fail_to_pass_output,
    flatten_compare,
    print_untrusted,
    set_count_outputs,
    set_coverage_outputs,
)
from verify_pr.contract import COMPARE_RESULT_FILE, OUTPUT_FILE, VERDICT_FILE
from verify_pr.errors import ConfigError, Crashed
from verify_pr.exit_codes import RunExit, StepExit, compare_verdicts, run_verdicts
from verify_pr.github.actions_io import ActionsIO
from verify_pr.github.credentials import check_credentials
from verify_pr.github.settings import Mode, VerifySettings
from verify_pr.markdown import fit_markdown
from verify_pr.models.compare import COMPARE_SIDES, CompareResult
from verify_pr.models.verdict import VerdictFile
from verify_pr.render.job_summary import compare_job_summary, run_job_summary

JOB_SUMMARY_MAX_BYTES = 1 << 19
Written = TypeVar("Written", bound=BaseModel)


def run(env: Mapping[str, str], stream: TextIO) -> int:
    """The step: refuse credentials, run the verifier, report; returns the exit code."""
    settings = VerifySettings.from_env(env)
    check_credentials(env, Path(settings.workspace), settings.repo)
    io = ActionsIO.from_env(env, stream)
    match settings.mode:
        case Mode.RUN:
            if settings.strict_harness:
                raise ConfigError(
                    "strict-harness applies to mode compare only", hint="drop strict-harness"
                )
            return _run_once(settings, env, io, stream)
        case Mode.COMPARE:
            if settings.diff_base:
                raise ConfigError(
                    "diff-base applies to mode run only (compare diffs against the PR's base)",
                    hint="drop diff-base",
                )
            return _run_compare(settings, env, io, stream)
        case _ as unreachable:
            assert_never(unreachable)


def _launch(
    io: ActionsIO,
    argv: list[str],
    env: Mapping[str, str],
    what: str,
    hint: str,
    verdict_codes: Collection[int],
) -> int:
    """Run the verifier; its messages go to the log as untrusted text. Returns its exit code,
    which is one of ``verdict_codes``: a refusal is ConfigError, anything else a crash."""
    returncode, messages = forward.run_child(argv, env)  # a signal to the step goes to the verifier
    print_untrusted(io, "verifier messages", messages)
    if returncode == RunExit.REFUSED:  # compare's refusal is the same code
        io.set_output("status", "refused")
        raise ConfigError(f"{what} refused its inputs", hint=hint)
    if returncode not in verdict_codes:  # ``entry`` sets the status output: crashed
        raise Crashed(
            f"{what} exited {returncode} without a verdict",
            hint="see the verifier messages above",
        )
    return returncode


def _set_fails_job(io: ActionsIO, settings: VerifySettings, verdict: str) -> None:
    """Whether the verdict is one ``fail-on`` lists: the action's last step fails the job
    unless this says ``false`` (an output that is missing fails it too)."""
    io.set_output("fails-job", "true" if verdict in settings.fail_on else "false")


def _read(path: Path, model: type[Written]) -> Written:
    """The verifier's file, validated strictly; missing or invalid is no verdict."""
    try:
        return model.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as exc:
        raise Crashed(f"the verifier wrote no valid {path.name}: {exc}") from exc


def _run_once(
    settings: VerifySettings, env: Mapping[str, str], io: ActionsIO, stream: TextIO
) -> int:
    out = Path(settings.runner_temp) / f"verify-pr-out-{secrets.token_hex(8)}"
    code = _launch(
        io,
        verifier_argv(settings, out),
        env,
        "verify-pr run",
        "see the verifier messages above",
        run_verdicts(),
    )
    verdict = _read(out / VERDICT_FILE, VerdictFile)
    if verdict.verdict is not run_verdicts()[code]:
        raise Crashed(f"verify-pr run exited {code} but wrote verdict {verdict.verdict.value}")
    output = out / OUTPUT_FILE
    if output.is_file():
        print_untrusted(io, "the check's output", output.read_bytes())
    io.append_summary(fit_markdown(run_job_summary(verdict), JOB_SUMMARY_MAX_BYTES)[0])
    io.set_output("verdict", verdict.verdict.value)
    _set_fails_job(io, settings, verdict.verdict.value)
    io.set_output("status", verdict.sandbox.status.value)
    set_count_outputs(io, verdict.totals)
    io.set_output("fail-to-pass", "[]")
    set_coverage_outputs(io, verdict.patch_coverage)
    io.set_output("out-dir", str(out))
    print(f"verify-pr: verdict {verdict.verdict.value}; files in {out}", file=stream)
    return StepExit.OK


def _run_compare(
    settings: VerifySettings, env: Mapping[str, str], io: ActionsIO, stream: TextIO
) -> int:
    if not settings.event_path:
        raise ConfigError(
            "mode compare needs GITHUB_EVENT_PATH (the pull_request event)",
            hint="run mode compare in a job triggered by `on: pull_request`",
        )
    token = secrets.token_hex(8)
    out = Path(settings.runner_temp) / f"verify-pr-compare-{token}"
    code = _launch(
        io,
        compare_argv(settings, out),
        env,
        "verify-pr compare",
        "mode compare needs a pull_request event and a checkout holding both commits: "
        "actions/checkout with `fetch-depth: 0` (see docs/action.md)",
        compare_verdicts(),
    )
    result = _read(out / COMPARE_RESULT_FILE, CompareResult)
    if result.verdict not in compare_verdicts()[code]:
        raise Crashed(f"verify-pr compare exited {code} but wrote verdict {result.verdict.value}")
    for side in COMPARE_SIDES:
        output = out / side / OUTPUT_FILE
        if output.is_file() and not output.is_symlink():
            print_untrusted(io, f"the {side} run's output", output.read_bytes())
    upload = Path(settings.runner_temp) / f"verify-pr-upload-{token}"
    flatten_compare(out, upload)
    io.append_summary(fit_markdown(compare_job_summary(result), JOB_SUMMARY_MAX_BYTES)[0])
    io.set_output("verdict", result.verdict.value)
    _set_fails_job(io, settings, result.verdict.value)
    io.set_output("status", compare_status(result))
    set_count_outputs(io, result.head.totals)
    io.set_output("fail-to-pass", fail_to_pass_output(result))
    set_coverage_outputs(io, result.patch_coverage)
    io.set_output("out-dir", str(upload))
    print(f"verify-pr: compare verdict {result.verdict.value}; files in {upload}", file=stream)
    return StepExit.OK
