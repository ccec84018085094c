"""The harness stage's hand-off: what could make the PR's tests pass without a fix.

The harness files the PR changes (by name and by what they reach: ``closure``), whether
head's tests ran with base's versions of them (``--strict-harness``), what the scan could not
follow, the tamper signals base's own tree already has, and the expected-failure markers the
PR adds to test files.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HarnessFacts:
    files: tuple[str, ...] = ()  # the harness files the PR changes
    strict: bool = False  # head's tests ran with base's harness files
    notes: tuple[str, ...] = ()  # harness beyond names, empty submodules (the closure's reasons)
    # the tamper signals of base's own tree: a signal is new only when base lacks it (the
    # before run holds the PR's tests, so its signals cannot tell); None: the before run's
    base_tamper: tuple[str, ...] | None = None
    markers: tuple[str, ...] = ()  # test files where the PR adds expected-failure markers
