"""How a run or a compare is made, read once from the flags at the entry (``verify/cli.py``;
the action passes its inputs as those flags) and passed down whole: nothing below the entry
reads a flag, or picks a setting out of the command line, again.

These are a caller's settings, not the verdict's rules (what makes VERIFIED or NOT PROVEN is
``decision.decide``'s): hence settings, never policy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from verify_pr.contract import AUTO, DEFAULT_FLAKE_RUNS, DEFAULT_TIMEOUT_S
from verify_pr.options import DEFAULT_MAX_OUTPUT
from verify_pr.sandbox.resources import DEFAULT_RESOURCES, Resources


@dataclass(frozen=True)
class Limits:
    """What bounds every sandbox of a run or a compare, the same for each."""

    timeout_s: int = DEFAULT_TIMEOUT_S
    max_output: int = DEFAULT_MAX_OUTPUT
    resources: Resources = DEFAULT_RESOURCES  # CPUs and memory of every sandbox


@dataclass(frozen=True)
class SuiteSettings:
    """How each run of the suite is made: the image, the runner (detected when auto) or the
    project's own command with its report format, and the limits."""

    image: str
    runner: str = AUTO
    command: str | None = None  # own command with {report}, the same for every run
    report_format: str | None = None
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True)
class CompareSettings:
    """A compare's settings: its suite's, whether head's tests run with base's harness files
    (``--strict-harness``), and how many times each FAIL_TO_PASS test re-runs per side."""

    suite: SuiteSettings
    strict_harness: bool = False
    flake_runs: int = DEFAULT_FLAKE_RUNS
