"""The verify step of the GitHub Action (``python -m verify_pr.action``, run by ``entrypoint``).

This step holds the PR's code, so it must hold no credential (the Rule of Two). It refuses to
run, and says how to fix the workflow, when the job visibly holds one
(``github.credentials``).

Then it runs ``verify-pr run`` (mode run) or ``verify-pr compare --git <checkout> --event
$GITHUB_EVENT_PATH`` (mode compare) in a child process (its output is untrusted: it goes to the
log only between ``::stop-commands::<random>`` markers), writes the job summary (escaped with
``verify_pr.markdown``) and sets the outputs ``verdict``, ``status`` and ``out-dir`` (the folder the
next step uploads). In mode compare that folder is flat: ``verify-pr-result.json``,
``compare_summary.md`` and ``base-``/``head-`` ``result.json``, ``verdict.json``, ``output.txt``,
``report.txt`` (``models.compare.COMPARE_ARTIFACT_FILES``), so the publish job can allow-list it.

``python -m verify_pr.action check-pull`` validates a digest-pinned image reference for the
opt-in ``docker pull`` step and refuses tags.

Exit codes (``EXIT_CODES``): 0 a verdict was written (the action's last step turns it into the
job result), 2 refused (settings, credentials, inputs the verifier refused), 3 the verifier
crashed or wrote no verdict.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TextIO, assert_never

from pydantic import ValidationError

from verify_pr.errors import ConfigError, SandboxBlocked, VerifyPrError
from verify_pr.exit_codes import report_crash
from verify_pr.github.actions_io import ActionsIO, escape_data
from verify_pr.github.base_image import base_sha_from_event, build_base_image
from verify_pr.github.credentials import check_credentials
from verify_pr.github.settings import (
    DIGEST_IMAGE_PATTERN,
    Mode,
    VerifySettings,
    read_input,
)
from verify_pr.markdown import fit_markdown
from verify_pr.models.compare import (
    COMPARE_RESULT_FILE,
    COMPARE_SIDES,
    COMPARE_SUMMARY_FILE,
    SIDE_FILES,
    CompareResult,
    CompareVerdict,
    Transition,
    side_file,
)
from verify_pr.models.report import Totals
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.render.job_summary import compare_job_summary, run_job_summary

# The verifier runs in a child interpreter, isolated (-I) like every host-side Python of the
# action: the working directory may hold the PR's files, and `-m` would import them first.
HOST_PYTHON = (sys.executable, "-I", "-m")
EXIT_OK = 0
EXIT_REFUSED = 2
EXIT_CRASHED = 3
LOG_OUTPUT_MAX_BYTES = 1 << 20
# a job's outputs share 1 MiB on GitHub: the output lists the first ids, the artifact all
MAX_FAIL_TO_PASS_OUTPUT = 200
COUNT_OUTPUTS = ("total", "passed", "failed", "errors", "skipped")
COMPARE_EXIT_VERDICTS = {
    0: CompareVerdict.VERIFIED,
    3: CompareVerdict.BLOCKED,
    4: CompareVerdict.NOT_PROVEN,
}
VERIFIER_EXIT_VERDICTS = {
    0: Verdict.PASS,
    1: Verdict.FAIL,
    3: Verdict.BLOCKED,
    4: Verdict.NOT_PROVEN,
}


def check_pull_image(image: str) -> str:
    """The image reference for the opt-in pull: ``name@sha256:<64 hex>``, never a tag."""
    if not re.fullmatch(DIGEST_IMAGE_PATTERN, image):
        raise ConfigError(
            f"pull-image-digest needs a digest-pinned image, got {image[:120]!r}",
            hint="write image: name@sha256:<64 hex digits> (a tag can be moved; a digest cannot)",
        )
    return image


def build_image(env: Mapping[str, str], stream: TextIO) -> int:
    """The build-dockerfile step: build ``image`` from base's Dockerfile, before any run."""
    settings = VerifySettings.from_env(env)
    check_credentials(env, Path(settings.workspace), settings.repo)
    if not settings.build_dockerfile:
        raise ConfigError("build-image needs the build-dockerfile input")
    if settings.pull_image_digest or "@" in settings.image:
        raise ConfigError(
            "build-dockerfile builds `image` as a local tag: give a tag, not a digest, and "
            "leave pull-image-digest false"
        )
    if not settings.event_path:
        raise ConfigError(
            "build-dockerfile needs GITHUB_EVENT_PATH (the pull_request event)",
            hint="run it in a job triggered by `on: pull_request`",
        )
    base = base_sha_from_event(settings.event_path)
    io = ActionsIO.from_env(env, stream)
    log = build_base_image(
        settings.repo, base, settings.build_dockerfile, settings.image, Path(settings.runner_temp)
    )
    _print_untrusted(io, "the image build", "\n".join(log).encode())
    print(
        f"verify-pr: built {settings.image} from {settings.build_dockerfile} at base {base[:12]}",
        file=stream,
    )
    return EXIT_OK


def _shared_flags(settings: VerifySettings, out: Path) -> list[str]:
    """The flags ``verify-pr run`` and ``verify-pr compare`` take alike."""
    if bool(settings.command) != bool(settings.report_format):
        raise ConfigError("the inputs command and report-format go together")
    if settings.command and settings.runner != "auto":
        raise ConfigError("the inputs runner and command exclude each other")
    suite = (
        ["--command", settings.command, "--report-format", settings.report_format]
        if settings.command
        else ["--runner", settings.runner]
    )
    return [
        "--image",
        settings.image,
        *suite,
        "--out",
        str(out),
        "--timeout",
        str(settings.timeout),
        "--max-output",
        str(settings.max_output),
        "--cpus",
        settings.cpus or runner_cpus(),
        "--memory",
        settings.memory,
    ]


def runner_cpus() -> str:
    """The runner's cores (what the job may use), for suites with workers; 1 to 64."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return str(min(64, max(1, cores or 1)))


def verifier_argv(settings: VerifySettings, out: Path) -> list[str]:
    verifier = [*HOST_PYTHON, "verify_pr.verify.cli", "run", "--repo", str(settings.repo)]
    return verifier + _shared_flags(settings, out)


def _print_untrusted(io: ActionsIO, title: str, data: bytes) -> None:
    text = data[:LOG_OUTPUT_MAX_BYTES].decode("utf-8", "replace")
    io.stream.write(f"verify-pr: {title} (untrusted; workflow commands are off):\n")
    with io.untrusted_log() as write:
        write(text)


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
            return _run_compare(settings, env, io, stream)
        case _ as unreachable:
            assert_never(unreachable)


def _launch(io: ActionsIO, argv: list[str], env: Mapping[str, str], what: str, hint: str) -> int:
    """Run the verifier; its messages go to the log as untrusted text. Returns its exit code."""
    done = subprocess.run(argv, capture_output=True, check=False, env=dict(env))
    _print_untrusted(io, "verifier messages", done.stdout + done.stderr)
    if done.returncode == EXIT_REFUSED:
        io.set_output("status", "refused")
        raise ConfigError(f"{what} refused its inputs", hint=hint)
    return done.returncode


def _run_once(
    settings: VerifySettings, env: Mapping[str, str], io: ActionsIO, stream: TextIO
) -> int:
    out = Path(settings.runner_temp) / f"verify-pr-out-{secrets.token_hex(8)}"
    code = _launch(
        io, verifier_argv(settings, out), env, "verify-pr run", "see the verifier messages above"
    )
    if code not in VERIFIER_EXIT_VERDICTS:
        io.set_output("status", "crashed")
        raise SandboxBlocked(
            f"verify-pr run exited {code} without a verdict",
            hint="see the verifier messages above",
        )
    try:
        verdict = VerdictFile.model_validate_json((out / "verdict.json").read_bytes())
    except (OSError, ValidationError) as exc:
        raise SandboxBlocked(f"the verifier wrote no valid verdict.json: {exc}") from exc
    output = out / "output.txt"
    if output.is_file():
        _print_untrusted(io, "the check's output", output.read_bytes())
    io.append_summary(fit_markdown(run_job_summary(verdict), 1 << 19)[0])
    io.set_output("verdict", verdict.verdict.value)
    io.set_output("status", verdict.sandbox.status.value)
    set_count_outputs(io, verdict.totals)
    io.set_output("fail-to-pass", "[]")
    io.set_output("out-dir", str(out))
    print(f"verify-pr: verdict {verdict.verdict.value}; files in {out}", file=stream)
    return EXIT_OK


def set_count_outputs(io: ActionsIO, totals: Totals | None) -> None:
    """The report's counts as outputs (``COUNT_OUTPUTS``); empty with no report."""
    values = ("",) * len(COUNT_OUTPUTS)
    if totals is not None:
        values = tuple(
            str(n)
            for n in (totals.total, totals.passed, totals.failed, totals.error, totals.skipped)
        )
    for name, value in zip(COUNT_OUTPUTS, values, strict=True):
        io.set_output(name, value)


def fail_to_pass_output(result: CompareResult) -> str:
    """The FAIL_TO_PASS test ids as a JSON array (ASCII-escaped: the ids are the PR's text)."""
    ids = [t.id for t in result.transitions if t.transition is Transition.FAIL_TO_PASS]
    return json.dumps(ids[:MAX_FAIL_TO_PASS_OUTPUT], ensure_ascii=True)


def compare_argv(settings: VerifySettings, out: Path) -> list[str]:
    argv = [*HOST_PYTHON, "verify_pr.verify.cli", "compare", "--git", str(settings.repo)]
    argv += ["--event", settings.event_path, *_shared_flags(settings, out)]
    argv += ["--flake-runs", str(settings.flake_runs)]
    if settings.strict_harness:
        argv.append("--strict-harness")
    return argv


def flatten_compare(out: Path, upload: Path) -> list[str]:
    """Copy what ``verify-pr compare`` wrote into ``upload`` under the flat artifact names.

    Only regular files (never a link) of the allow-listed names are copied; ``upload`` is
    created and must not exist. Returns the names written.
    """
    sources = {COMPARE_RESULT_FILE: out / COMPARE_RESULT_FILE}
    sources[COMPARE_SUMMARY_FILE] = out / COMPARE_SUMMARY_FILE
    for side in COMPARE_SIDES:
        for name in SIDE_FILES:
            sources[side_file(side, name)] = out / side / name
    upload.mkdir(mode=0o700)
    written = []
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
    for name, source in sources.items():
        try:
            if not stat.S_ISREG(os.lstat(source).st_mode):
                continue
        except FileNotFoundError:
            continue
        data = source.read_bytes()
        with os.fdopen(os.open(upload / name, flags, 0o600), "wb") as handle:
            handle.write(data)
        written.append(name)
    return written


def compare_status(result: CompareResult) -> str:
    """One status for two runs: the first side that did not complete, else COMPLETED."""
    for verdict in (result.base, result.head):
        if verdict.sandbox.status is not RunStatus.COMPLETED:
            return verdict.sandbox.status.value
    return RunStatus.COMPLETED.value


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
    )
    if code not in COMPARE_EXIT_VERDICTS:
        io.set_output("status", "crashed")
        raise SandboxBlocked(
            f"verify-pr compare exited {code} without a verdict",
            hint="see the verifier messages above",
        )
    try:
        result = CompareResult.model_validate_json((out / COMPARE_RESULT_FILE).read_bytes())
    except (OSError, ValidationError) as exc:
        raise SandboxBlocked(f"the verifier wrote no valid {COMPARE_RESULT_FILE}: {exc}") from exc
    if result.verdict is not COMPARE_EXIT_VERDICTS[code]:
        raise SandboxBlocked(
            f"verify-pr compare exited {code} but wrote verdict {result.verdict.value}"
        )
    for side in COMPARE_SIDES:
        output = out / side / "output.txt"
        if output.is_file() and not output.is_symlink():
            _print_untrusted(io, f"the {side} run's output", output.read_bytes())
    upload = Path(settings.runner_temp) / f"verify-pr-upload-{token}"
    flatten_compare(out, upload)
    io.append_summary(fit_markdown(compare_job_summary(result), 1 << 19)[0])
    io.set_output("verdict", result.verdict.value)
    io.set_output("status", compare_status(result))
    set_count_outputs(io, result.head.totals)
    io.set_output("fail-to-pass", fail_to_pass_output(result))
    io.set_output("out-dir", str(upload))
    print(f"verify-pr: compare verdict {result.verdict.value}; files in {upload}", file=stream)
    return EXIT_OK


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    environ = os.environ if env is None else env
    # check-pull's stdout is the image reference, captured by the step with $(...): its
    # errors go to stderr, which the runner reads for workflow commands too.
    errors = sys.stderr if args == ["check-pull"] else sys.stdout
    try:
        if args == ["check-pull"]:
            print(check_pull_image(read_input(environ, "image")))
            return EXIT_OK
        if args == ["build-image"]:
            return build_image(environ, sys.stdout)
        if args:
            raise ConfigError(f"unknown arguments {args!r}")
        return run(environ, sys.stdout)
    except SandboxBlocked as exc:
        print(f"::error title=verify-pr::{escape_data(exc.diagnostics())}", file=errors, flush=True)
        return EXIT_CRASHED
    except VerifyPrError as exc:
        message = escape_data(exc.diagnostics())
        print(f"::error title=verify-pr refused::{message}", file=errors, flush=True)
        return EXIT_REFUSED
    except Exception as exc:  # a bug: the step fails with "crashed", never a verdict
        report_crash("verify-pr action", exc)
        with contextlib.suppress(Exception):  # best effort: the output file may be the bug
            ActionsIO.from_env(environ, sys.stdout).set_output("status", "crashed")
        message = escape_data(f"verify-pr crashed: {type(exc).__name__}: {exc}")
        print(f"::error title=verify-pr crashed::{message}", file=errors, flush=True)
        return EXIT_CRASHED


if __name__ == "__main__":
    sys.exit(main())
