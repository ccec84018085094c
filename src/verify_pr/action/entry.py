"""The verify step's entry: the arguments, and every error mapped to an exit code once.

Exit codes (``exit_codes.StepExit``): 0 a verdict was written (the action's last step turns it
into the job result), 2 refused (settings, credentials, inputs the verifier refused), 3 BLOCKED
(the test image could not be built), 5 crashed: the verifier crashed or wrote no verdict, or
the step itself crashed (then the ``status`` output is ``crashed``), 7 cancelled: SIGINT or
SIGTERM reached the step; it went on to the verifier, which removed its sandboxes and
temporary files, and the step waited for it (``forward``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, Sequence

from verify_pr.action import forward, step
from verify_pr.action.image import build_image, check_pull_image
from verify_pr.errors import Category, ConfigError, Crashed
from verify_pr.exit_codes import STEP_CODES, StepExit, diagnostics, report_crash, run_entry
from verify_pr.github.actions_io import ActionsIO, escape_data
from verify_pr.github.settings import read_input


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    environ = os.environ if env is None else env
    # check-pull's stdout is the image reference, captured by the step with $(...): its
    # errors go to stderr, which the runner reads for workflow commands too.
    errors = sys.stderr if args == ["check-pull"] else sys.stdout

    def say(category: Category, exc: BaseException) -> None:
        if category is Category.CRASHED:
            _set_crashed(environ)
        if isinstance(exc, Crashed):  # the verifier ended without a verdict
            title, message = "verify-pr", exc.diagnostics()
        elif category is Category.CRASHED:  # a bug: the step fails with "crashed"
            report_crash("verify-pr action", exc)
            title, message = "verify-pr crashed", f"verify-pr crashed: {type(exc).__name__}: {exc}"
        else:
            title, message = f"verify-pr {category}", diagnostics(exc)
        print(f"::error title={title}::{escape_data(message)}", file=errors, flush=True)

    with forward.on_signals():
        return run_entry("verify-pr action", lambda: _run(args, environ), STEP_CODES, say)


def _run(args: list[str], environ: Mapping[str, str]) -> int:
    if args == ["check-pull"]:
        print(check_pull_image(read_input(environ, "image")))
        return StepExit.OK
    if args == ["build-image"]:
        build_image(environ, sys.stdout)
        return StepExit.OK
    if args:
        raise ConfigError(f"unknown arguments {args!r}")
    return step.run(environ, sys.stdout)


def _set_crashed(environ: Mapping[str, str]) -> None:
    with contextlib.suppress(Exception):  # best effort: the output file may be the bug
        ActionsIO.from_env(environ, sys.stdout).set_output("status", "crashed")
