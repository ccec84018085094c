"""Each option's syntax and checks, written once: verify-pr's command line (``verify/cli.py``,
``sandbox/cli.py``) and the action's inputs (``github/settings.py``, ``action/commands.py``) all
check through here, so one bad value is refused in the same words, with the same category
(refused: exit 2 from verify-pr and from the verify step), whichever way it came.

Every message names the option by its flag (``--timeout``); the action adds which input it
was as the error's hint. Shared below every job (``tests/unit/test_layers.py``): it imports
only the contract and the errors.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from typing import NoReturn

from verify_pr.contract import (
    AUTO,
    CUSTOM_FORMAT_CHOICES,
    DEFAULT_FLAKE_RUNS,
    DEFAULT_TIMEOUT_S,
    MAX_FLAKE_RUNS,
    RUNNER_CHOICES,
    TIMEOUT_RANGE,
)
from verify_pr.errors import InputRefused

DEFAULT_MAX_OUTPUT = 1024 * 1024
MAX_OUTPUT_RANGE = (1, DEFAULT_MAX_OUTPUT)
FLAKE_RUNS_RANGE = (0, MAX_FLAKE_RUNS)
IMAGE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}")

NANO = 1_000_000_000
DEFAULT_CPUS = "1"
DEFAULT_MEMORY = "512m"
# At most two decimals of a CPU; 64 CPUs at most (a runner machine's cores, with room).
CPUS_RANGE = (NANO // 4, 64 * NANO)
# The floor keeps the sandbox's tmpfs mounts (/work, /tmp, /cap and /dev/shm: 424 MiB, counted
# by the memory cgroup) inside the limit, so a disk fill meets ENOSPC rather than an OOM kill.
MEMORY_RANGE_MIB = (512, 64 * 1024)
_CPUS = re.compile(r"([0-9]{1,2})(?:\.([0-9]{1,2}))?")
_MEMORY = re.compile(r"([0-9]{1,6})([mg])")
_NUMBER = re.compile(r"[0-9]{1,12}")


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors are refusals (``InputRefused``), never its own exit 2."""

    def error(self, message: str) -> NoReturn:
        raise InputRefused(message)


def parse_number(flag: str, text: str | None, default: int, bounds: tuple[int, int]) -> int:
    """Base 10 only: a leading zero is not octal; signs, spaces and underscores are refused."""
    if text is None:
        return default
    if not _NUMBER.fullmatch(text):
        raise InputRefused(f"{flag} must be a base-10 whole number, got {text[:40]!r}")
    value = int(text, 10)
    low, high = bounds
    if not low <= value <= high:
        raise InputRefused(f"{flag} must be within {low}..{high}, got {value}")
    return value


def timeout(text: str | None) -> int:
    return parse_number("--timeout", text, DEFAULT_TIMEOUT_S, TIMEOUT_RANGE)


def max_output(text: str | None) -> int:
    return parse_number("--max-output", text, DEFAULT_MAX_OUTPUT, MAX_OUTPUT_RANGE)


def flake_runs(text: str | None) -> int:
    return parse_number("--flake-runs", text, DEFAULT_FLAKE_RUNS, FLAKE_RUNS_RANGE)


def check_image(text: str) -> str:
    """A local image's name: letters, digits and ``._/:@-``, a letter or digit first (never an
    option to docker)."""
    if not IMAGE_RE.fullmatch(text):
        raise InputRefused(
            "--image must match [A-Za-z0-9._/:@-] and start with a letter or a digit"
        )
    return text


def parse_cpus(text: str) -> int:
    """CPUs as nano-CPUs: "1", "2", "1.5", "0.25"; 0.25..64."""
    match = _CPUS.fullmatch(text)
    if match is None:
        raise InputRefused(f"--cpus must be a number of CPUs like 2 or 1.5, got {text[:40]!r}")
    whole, frac = match.group(1), (match.group(2) or "").ljust(2, "0")
    nano = int(whole) * NANO + int(frac) * (NANO // 100)
    low, high = CPUS_RANGE
    if not low <= nano <= high:
        raise InputRefused(f"--cpus must be within {low / NANO:g}..{high / NANO:g}, got {text}")
    return nano


def parse_memory(text: str) -> int:
    """Memory in MiB from "512m" or "2g"; 512m..64g."""
    match = _MEMORY.fullmatch(text)
    if match is None:
        raise InputRefused(f"--memory must be like 512m or 2g, got {text[:40]!r}")
    mib = int(match.group(1)) * (1024 if match.group(2) == "g" else 1)
    low, high = MEMORY_RANGE_MIB
    if not low <= mib <= high:
        raise InputRefused(f"--memory must be within {low}m..{high // 1024}g, got {text}")
    return mib


def choice(flag: str, text: str, choices: Sequence[str]) -> str:
    """A value among ``choices`` (the contract's lists), refused naming them all."""
    if text in choices:
        return text
    names = [repr(c) for c in choices]
    expected = f"{', '.join(names[:-1])} or {names[-1]}"
    raise InputRefused(f"{flag} must be {expected}, got {text[:40]!r}")


def runner(text: str) -> str:
    return choice("--runner", text, RUNNER_CHOICES)


def report_format(text: str) -> str:
    return choice("--report-format", text, CUSTOM_FORMAT_CHOICES)


def check_suite(runner: str, command: str | None, report_format: str | None) -> None:
    """How the suite is chosen: a command and its report format go together, and exclude a
    runner other than auto (``None``: not given)."""
    if (command is None) != (report_format is None):
        raise InputRefused("--command and --report-format go together")
    if command is not None and runner != AUTO:
        raise InputRefused("--runner and --command exclude each other")
