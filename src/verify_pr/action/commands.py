"""The verifier's command line, built from the action's settings (``verify-pr run``/``compare``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from verify_pr.github.settings import VerifySettings

# The verifier runs in a child interpreter, isolated (-I) like every host-side Python of the
# action: the working directory may hold the PR's files, and `-m` would import them first.
HOST_PYTHON = (sys.executable, "-I", "-m")


def _shared_flags(settings: VerifySettings, out: Path) -> list[str]:
    """The flags ``verify-pr run`` and ``verify-pr compare`` take alike, from inputs checked
    by the flags' own checks as they were read (``VerifySettings.from_env``, ``options``)."""
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
    diff_base = ["--diff-base", settings.diff_base] if settings.diff_base else []
    return verifier + _shared_flags(settings, out) + diff_base


def compare_argv(settings: VerifySettings, out: Path) -> list[str]:
    argv = [*HOST_PYTHON, "verify_pr.verify.cli", "compare", "--git", str(settings.repo)]
    argv += ["--event", settings.event_path, *_shared_flags(settings, out)]
    argv += ["--flake-runs", str(settings.flake_runs)]
    if settings.strict_harness:
        argv.append("--strict-harness")
    return argv
