"""pytest fixtures for the loopback GitHub API fake (loaded as a plugin by tests/conftest.py).

``github_fake`` starts a ``FakeGitHub`` for one test and fails the test if any request broke
GitHub's OpenAPI description; a test that provokes violations on purpose calls
``github_fake.take_violations()``. ``webhook_payload(event, action)`` returns a real payload
from @octokit/webhooks-examples.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.github_fake.openapi import OpenApi, webhook_examples
from tests.github_fake.server import FakeGitHub


@pytest.fixture(scope="session")
def github_openapi() -> OpenApi:
    return OpenApi.load()


@pytest.fixture
def github_fake(github_openapi: OpenApi) -> Iterator[FakeGitHub]:
    with FakeGitHub(github_openapi) as fake:
        yield fake
    if fake.violations:
        pytest.fail(
            "requests to the GitHub fake broke the API description:\n- "
            + "\n- ".join(fake.violations),
            pytrace=False,
        )


@pytest.fixture(scope="session")
def webhook_payload() -> Callable[..., dict[str, Any]]:
    def pick(event: str, action: str | None = None) -> dict[str, Any]:
        for example in webhook_examples()[event]:
            if action is None or example.get("action") == action:
                return copy.deepcopy(example)
        raise LookupError(f"no {event}/{action} example in @octokit/webhooks-examples")

    return pick
