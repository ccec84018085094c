"""The hostile tier: every attack in a real container, each with a positive control."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.hostile import helpers


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "attack(name, control): a hostile fixture and the positive control it pairs"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/hostile/" in str(item.fspath):
            item.add_marker(pytest.mark.docker)
            item.add_marker(pytest.mark.hostile)


@pytest.fixture(autouse=True)
def _record(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each helper call records what the host said; the table script reads it back."""
    helpers.RECORD[:] = []
    yield
    for key, value in helpers.RECORD:
        request.node.user_properties.append((key, value))


@pytest.fixture(scope="session")
def python_image() -> str:
    from tests.conftest import require_docker

    require_docker(helpers.PYTHON_IMAGE)
    return helpers.PYTHON_IMAGE
