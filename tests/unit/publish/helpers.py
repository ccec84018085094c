"""Helpers the GitHub client tests share: a commit sha and a sleep that only records."""

from __future__ import annotations

SHA = "a" * 40
NOW = 1_800_000_000.0


class Sleeps:
    """A fake sleep: records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
