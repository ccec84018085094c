"""The GitHub client tests' fixtures: a recording sleep, and a client of the loopback fake
that sleeps with it and whose clock stands still at NOW."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.github_fake.server import TOKEN, FakeGitHub
from tests.unit.publish.helpers import NOW, Sleeps
from verify_pr.publish.github_api import GitHubClient


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def client(github_fake: FakeGitHub, sleeps: Sleeps) -> Iterator[GitHubClient]:
    with GitHubClient(
        token=TOKEN,
        repository="octo/repo",
        base_url=github_fake.base_url,
        sleep=sleeps,
        clock=lambda: NOW,
    ) as gh:
        yield gh
