"""Engine fault paths with a small fake at the API seam (the real daemon proves the rest)."""

from __future__ import annotations

from typing import Any

import pytest

from verify_pr.errors import SandboxBlocked
from verify_pr.sandbox import engine
from verify_pr.sandbox.docker_api import _blocked_from
from verify_pr.sandbox.policy import SandboxPolicy

POLICY = SandboxPolicy(
    image="img", repo="/r", command="true", timeout_s=5, max_output=10, name="verify-pr-x"
)


def good_inspect() -> dict[str, Any]:
    return {
        "HostConfig": {
            "NetworkMode": "none",
            "ReadonlyRootfs": True,
            "PidsLimit": 256,
            "NanoCpus": 10**9,
            "Init": True,
            "Privileged": False,
            "CapDrop": ["ALL"],
            "CapAdd": None,
            "Memory": 512 * 2**20,
            "MemorySwap": 512 * 2**20,
        },
        "Mounts": [{"Destination": "/repo"}],
    }


class FakeApi:
    def __init__(self, warnings: list[str], info: dict[str, Any]) -> None:
        self.warnings = warnings
        self.info = info
        self.removed: list[str] = []

    def create(self, kwargs: dict[str, Any]) -> tuple[str, list[str]]:
        return "c" * 64, self.warnings

    def inspect(self, container_id: str) -> dict[str, Any]:
        return self.info

    def remove(self, container_id: str) -> None:
        self.removed.append(container_id)


def test_create_warning_is_blocked_and_container_removed() -> None:
    api = FakeApi(["Your kernel does not support swap limit capabilities"], good_inspect())
    with pytest.raises(SandboxBlocked, match="dropped a control"):
        engine.run_container(api, POLICY)  # type: ignore[arg-type]
    assert api.removed == ["c" * 64]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("NetworkMode", "bridge"),
        ("ReadonlyRootfs", False),
        ("PidsLimit", 0),
        ("Init", False),
        ("CapDrop", []),
        ("MemorySwap", -1),
    ],
)
def test_missing_control_on_the_created_container_is_blocked(key: str, value: object) -> None:
    info = good_inspect()
    info["HostConfig"][key] = value
    api = FakeApi([], info)
    with pytest.raises(SandboxBlocked, match="lacks controls"):
        engine.run_container(api, POLICY)  # type: ignore[arg-type]
    assert api.removed == ["c" * 64]


def test_extra_mount_is_blocked() -> None:
    info = good_inspect()
    info["Mounts"].append({"Destination": "/var/run/docker.sock"})
    with pytest.raises(SandboxBlocked, match="Mounts"):
        engine.run_container(FakeApi([], info), POLICY)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("write /var/lib/docker: no space left on device", "out of resources"),
        ("fork/exec: cannot allocate memory", "out of resources"),
        ("too many open files", "out of resources"),
        ("('Connection aborted.', FileNotFoundError(2))", "unreachable"),
        ("something else broke", "failed while"),
    ],
)
def test_daemon_errors_map_to_blocked_details(message: str, expected: str) -> None:
    blocked = _blocked_from(RuntimeError(message), "creating the container")
    assert expected in blocked.diagnostics()


def test_image_not_found_says_never_pulled() -> None:
    import docker.errors

    blocked = _blocked_from(docker.errors.ImageNotFound("no such image"), "inspecting")
    assert "never pulls" in blocked.diagnostics()
