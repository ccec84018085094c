"""Durations in reports: plain decimals only, including bun's "0." (a flake until accepted)."""

from __future__ import annotations

import pytest

from verify_pr.errors import ReportError
from verify_pr.reports._common import parse_seconds


@pytest.mark.parametrize(
    ("raw", "seconds"), [("0", 0.0), ("0.", 0.0), ("1.25", 1.25), ("12.", 12.0), ("1e-3", 0.001)]
)
def test_decimals_are_durations(raw: str, seconds: float) -> None:
    assert parse_seconds(raw, "time") == seconds


@pytest.mark.parametrize("raw", ["nan", "inf", "-1", "0x10", ".5", "", "1..2", "1.2.3", "1e999"])
def test_anything_else_is_refused(raw: str) -> None:
    with pytest.raises(ReportError):
        parse_seconds(raw, "time")
