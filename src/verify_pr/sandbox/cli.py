"""verify-pr-sandbox: the contract's command line. Exit 0 ran, 2 refused, 3 BLOCKED, 5 crashed.

Imports stay light until a run needs the engine, so ``--help`` and refusals are quick.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

from verify_pr import options
from verify_pr.contract import (
    COVERAGE_FILE,
    DEFAULT_TIMEOUT_S,
    MAX_COVERAGE_BYTES,
    MAX_REPORT_BYTES,
    REPORT_FILE,
    SANDBOX_CLI_OUT_FILES,
    TIMEOUT_RANGE,
    WORK_DIR,
    check_report_path,
)
from verify_pr.errors import InputRefused, SandboxBlocked
from verify_pr.exit_codes import SANDBOX_CODES, SandboxExit, run_entry
from verify_pr.options import Parser, check_image

if TYPE_CHECKING:
    from verify_pr.sandbox.run import SandboxRequest

MAX_VALUE_CHARS = 4096
MAX_CMD_CHARS = 65536

DESCRIPTION = """\
Run one untrusted shell command against a repository in a locked-down Docker container:
no network, read-only root, uid 65534, no capabilities, pids/memory/CPU caps, a wall
timeout, a scrubbed environment and exactly one read-only mount (the repo at /repo, copied
to /work inside). The image is never pulled.
"""

_REPORT_MIB = MAX_REPORT_BYTES >> 20
_COVERAGE_MIB = MAX_COVERAGE_BYTES >> 20
EPILOG = f"""\
files written (only by the host, atomically, into --out):
  result.json  status COMPLETED | TIMEOUT | ERROR | BLOCKED, exit_code, output_truncated,
               detail, image, timeout_s, image_id, report, duration_s
  output.txt   the check's stdout+stderr, capped at --max-output bytes (untrusted data)
  report.txt   with --report: the file the check wrote at that path (up to {_REPORT_MIB} MiB)
  coverage.txt with --coverage: the same for a second path (up to {_COVERAGE_MIB} MiB), e.g.
               coverage data (docs/coverage.md); result.json's "coverage" says what became of it

exit codes:
  0  the check ran: read result.json (a failing check is still exit 0)
  2  input refused (one-line reason on stderr); nothing is run or written
  3  BLOCKED: Docker absent, daemon down, image not local, resources exhausted, or
     interrupted. BLOCKED says nothing about the PR and is never a verdict.
"""


class _Once(argparse.Action):
    """A value flag that may be given once, with a non-empty value of bounded length."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        ns: argparse.Namespace,
        values: str | Sequence[Any] | None,
        opt: str | None = None,
    ) -> None:
        if getattr(ns, self.dest) is not None:
            raise InputRefused(f"{opt} given more than once")
        limit = MAX_CMD_CHARS if self.dest == "cmd" else MAX_VALUE_CHARS
        if not isinstance(values, str) or values == "":
            raise InputRefused(f"{opt} needs a non-empty value")
        if len(values) > limit:
            raise InputRefused(f"{opt} value is longer than {limit} characters")
        setattr(ns, self.dest, values)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="verify-pr-sandbox",
        description=DESCRIPTION,
        epilog=EPILOG,
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--repo", action=_Once, metavar="DIR", help="repository to check (read-only)")
    p.add_argument("--out", action=_Once, metavar="DIR", help="empty or new folder for results")
    p.add_argument(
        "--cmd", action=_Once, metavar="'SHELL CMD'", help=f"run by /bin/sh in {WORK_DIR}"
    )
    p.add_argument("--image", action=_Once, metavar="IMG", help="local image; never pulled")
    p.add_argument(
        "--timeout",
        action=_Once,
        metavar="S",
        help=f"wall timeout, 1..{TIMEOUT_RANGE[1]} ({DEFAULT_TIMEOUT_S})",
    )
    p.add_argument(
        "--max-output", action=_Once, metavar="B", help="output cap in bytes, 1..1048576 (1 MiB)"
    )
    p.add_argument(
        "--report",
        action=_Once,
        metavar=f"{WORK_DIR}/NAME",
        help=f"return this file as {REPORT_FILE}",
    )
    p.add_argument(
        "--coverage",
        action=_Once,
        metavar=f"{WORK_DIR}/NAME",
        help=f"return this file too, as {COVERAGE_FILE} (not the --report path)",
    )
    p.add_argument("--cpus", action=_Once, metavar="N", help="CPUs, 0.25..64 (1)")
    p.add_argument("--memory", action=_Once, metavar="SIZE", help="memory, 512m..64g (512m)")
    p.add_argument(
        "--print-argv",
        action="store_true",
        help="print the equivalent docker run command line and exit without running",
    )
    return p


def _interrupt(signum: int, frame: FrameType | None) -> None:
    # Raise once; ignore repeats so cleanup (removing the container) can finish.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SandboxBlocked(f"the runner was interrupted by {signal.Signals(signum).name}")


def main(argv: Sequence[str] | None = None) -> int:
    """Each error by the category its class declares (``exit_codes.run_entry``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return run_entry("verify-pr-sandbox", lambda: _main(args), SANDBOX_CODES)


def entry() -> NoReturn:
    """The command's entry point: :func:`main`, then exit without the interpreter's teardown.

    By then every file in OUT is written, fsynced and renamed, and the container is removed;
    what teardown would add is freeing the Docker SDK's and pydantic's modules one by one, which
    costs a trivial run about as much as the SDK's import (bench/trivial_run_profile.py).
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _main(argv: list[str]) -> int:
    ns = build_parser().parse_args(argv)
    for flag in ("repo", "out", "cmd", "image"):
        if getattr(ns, flag) is None:
            raise InputRefused(f"--{flag} is required")
    from verify_pr.sandbox.guard import check_out, check_repo, check_tree
    from verify_pr.sandbox.resources import parse_resources
    from verify_pr.sandbox.run import SandboxRequest

    if "\0" in ns.cmd:
        raise InputRefused("--cmd must not contain NUL")
    coverage_path = None
    if ns.coverage is not None:
        coverage_path = check_report_path(ns.coverage, random=False, what="--coverage")
        if coverage_path == ns.report:
            raise InputRefused("--coverage must name another file than --report")
    repo = check_repo(ns.repo, os.environ.get("HOME"))
    out = check_out(ns.out, repo, SANDBOX_CLI_OUT_FILES)
    request = SandboxRequest(
        repo=repo,
        command=ns.cmd,
        image=check_image(ns.image),
        timeout_s=options.timeout(ns.timeout),
        max_output=options.max_output(ns.max_output),
        report_path=(
            check_report_path(ns.report, random=False, what="--report")
            if ns.report is not None
            else None
        ),
        resources=parse_resources(ns.cpus, ns.memory),
        coverage_path=coverage_path,
    )
    if ns.print_argv:
        from verify_pr.sandbox.policy import DEFAULT_PATH
        from verify_pr.sandbox.run import make_policy, new_run_id

        print(make_policy(request, DEFAULT_PATH, new_run_id()).docker_command_line())
        return SandboxExit.RAN
    check_tree(repo)
    return _run(request, out)


def _run(request: SandboxRequest, out: Path) -> int:
    from verify_pr.models.sandbox import RunStatus
    from verify_pr.sandbox.out_files import write_out
    from verify_pr.sandbox.run import blocked_result, run_sandbox

    previous = {s: signal.signal(s, _interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        try:
            run = run_sandbox(request)
        except SandboxBlocked as exc:  # an interrupt raised outside the engine's own handling
            run = blocked_result(request, exc)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    try:
        write_out(out, run.result, run.output, run.report, run.coverage)
    finally:
        for spool in (run.report, run.coverage):
            if spool is not None:
                spool.close()  # explicitly: entry() skips exit-time finalizers
    print(f"verify-pr-sandbox: {run.result.status}: {run.result.detail}", file=sys.stderr)
    return SandboxExit.BLOCKED if run.result.status is RunStatus.BLOCKED else SandboxExit.RAN


if __name__ == "__main__":
    entry()
