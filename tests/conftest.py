"""Shared test setup: a clean environment, and the Docker tier that must not skip under CI."""

from __future__ import annotations

import os

import pytest

HOST_TOKENS = (
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "SSH_AUTH_SOCK",
)
# The loopback GitHub API fake (tests/github_fake) as a plugin; its fixtures start it on demand.
pytest_plugins = ["tests.github_fake.fixtures"]

MINIMAL_IMAGE = os.environ.get("VPR_TEST_IMAGE", "verify-pr-minimal:local")
_skipped_docker: list[str] = []


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in HOST_TOKENS:
        monkeypatch.delenv(name, raising=False)


def _docker_problem(image: str) -> str | None:
    try:
        import docker
        import docker.errors
        import docker.utils

        client = docker.APIClient(timeout=10, **docker.utils.kwargs_from_env())
        client.ping()
    except Exception as exc:
        return f"no Docker daemon: {exc}"
    try:
        client.inspect_image(image)
    except docker.errors.ImageNotFound:
        return f"image {image} is not local: run python3 tests/images/build.py"
    finally:
        client.close()
    return None


def require_docker(image: str = MINIMAL_IMAGE) -> None:
    """Skip loudly without a daemon or image; under CI=true that is a failure instead."""
    problem = _docker_problem(image)
    if problem is None:
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"Docker tier cannot run under CI: {problem}")
    _skipped_docker.append(problem)
    pytest.skip(f"DOCKER TIER SKIPPED: {problem}")


@pytest.fixture(scope="session")
def minimal_image() -> str:
    require_docker(MINIMAL_IMAGE)
    return MINIMAL_IMAGE


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _skipped_docker:
        terminalreporter.write_sep(
            "!", f"DOCKER TIER SKIPPED ({len(_skipped_docker)} tests): {_skipped_docker[0]}"
        )
