"""The unit tier's environment: no host token or runner file leaks into a test."""

from __future__ import annotations

import os

import pytest

_HOST_VARIABLES = ("GITHUB_TOKEN", "GH_TOKEN", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV")


@pytest.fixture(autouse=True)
def _clean_host_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No host token or runner file may leak into a unit test."""
    for name in list(os.environ):
        if name in _HOST_VARIABLES or name.startswith("INPUT_"):
            monkeypatch.delenv(name)
