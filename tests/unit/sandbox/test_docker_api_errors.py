"""The Docker adapter maps each third-party error, by its type, to one BLOCKED line.

A fake SDK client raises the real exception types of docker, requests, urllib3, http.client
and the OS; the real daemon proves the controls (tests/integration, tests/hostile).
"""

from __future__ import annotations

import errno
import http.client
from collections.abc import Callable
from typing import Any

import docker.errors
import pytest
import requests
import requests.exceptions
import urllib3.exceptions

from verify_pr.errors import SandboxBlocked
from verify_pr.sandbox.docker_api import DockerApi, SdkClient


def response(status: int) -> requests.Response:
    got = requests.Response()
    got.status_code = status
    return got


def api_error(
    status: int, explanation: str, kind: type[docker.errors.APIError] | None = None
) -> Exception:
    error: Exception = (kind or docker.errors.APIError)(
        f"{status} Server Error", response=response(status), explanation=explanation
    )
    return error


class FailingSdk:
    """Every call raises ``error`` (the SDK's signature for each call the adapter makes)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.closed = False

    def ping(self) -> object:
        raise self.error

    def inspect_image(self, image: str, /) -> dict[str, Any]:
        raise self.error

    def create_host_config(self, **kwargs: Any) -> dict[str, Any]:
        raise self.error

    def create_container(self, **kwargs: Any) -> dict[str, Any]:
        raise self.error

    def attach_socket(self, container: str, params: dict[str, int], /) -> Any:
        raise self.error

    def start(self, container: str, /) -> object:
        raise self.error

    def wait(self, container: str, timeout: int, /) -> dict[str, Any]:
        raise self.error

    def inspect_container(self, container: str, /) -> dict[str, Any]:
        raise self.error

    def containers(self, *, all: bool, filters: dict[str, str]) -> list[dict[str, Any]]:
        raise self.error

    def kill(self, container: str, /) -> object:
        raise self.error

    def remove_container(self, container: str, /, *, force: bool, v: bool) -> object:
        raise self.error

    def close(self) -> None:
        self.closed = True


def adapter(error: BaseException) -> DockerApi:
    sdk: SdkClient = FailingSdk(error)
    return DockerApi(lambda: sdk)


def blocked(error: Exception, call: str = "inspect") -> SandboxBlocked:
    api = adapter(error)
    with pytest.raises(SandboxBlocked) as caught:
        getattr(api, call)("c" * 64)
    assert caught.value.__cause__ is error  # the original stays attached for the traceback
    return caught.value


UNREACHABLE = "the Docker daemon is unreachable while inspecting the container: "
RESOURCES = "the Docker daemon is out of resources while inspecting the container: "
FAILED = "the Docker daemon failed while inspecting the container: "
NO_SUCH_FILE = FileNotFoundError(errno.ENOENT, "No such file or directory")


@pytest.mark.parametrize(
    ("error", "prefix"),
    [
        pytest.param(
            api_error(500, "write /var/lib/docker/x: no space left on device"),
            RESOURCES,
            id="APIError-no-space",
        ),
        pytest.param(
            api_error(500, "fork/exec /usr/bin/runc: cannot allocate memory"),
            RESOURCES,
            id="APIError-no-memory",
        ),
        pytest.param(api_error(500, "too many open files"), RESOURCES, id="APIError-too-many"),
        pytest.param(
            api_error(500, "fork: resource temporarily unavailable"),
            RESOURCES,
            id="APIError-eagain",
        ),
        pytest.param(api_error(500, "something else broke"), FAILED, id="APIError-other"),
        pytest.param(
            api_error(404, "No such container", docker.errors.NotFound), FAILED, id="NotFound"
        ),
        pytest.param(
            requests.exceptions.ConnectionError(
                urllib3.exceptions.ProtocolError("Connection aborted.", NO_SUCH_FILE)
            ),
            UNREACHABLE,
            id="requests-ConnectionError",
        ),
        pytest.param(
            requests.exceptions.ConnectionError(
                urllib3.exceptions.ProtocolError(
                    "Connection aborted.", OSError(errno.EMFILE, "Too many open files")
                )
            ),
            RESOURCES,
            id="requests-ConnectionError-EMFILE",
        ),
        pytest.param(
            requests.exceptions.ReadTimeout("Read timed out. (read timeout=60)"),
            UNREACHABLE,
            id="requests-ReadTimeout",
        ),
        pytest.param(
            urllib3.exceptions.ProtocolError("Connection aborted.", ConnectionResetError(104)),
            UNREACHABLE,
            id="urllib3-ProtocolError",
        ),
        pytest.param(
            ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
            UNREACHABLE,
            id="OSError-refused",
        ),
        pytest.param(TimeoutError("timed out"), UNREACHABLE, id="OSError-timeout"),
        pytest.param(
            OSError(errno.ENOSPC, "No space left on device"), RESOURCES, id="OSError-ENOSPC"
        ),
        pytest.param(http.client.IncompleteRead(b"par"), FAILED, id="http-IncompleteRead"),
        pytest.param(
            docker.errors.DockerException("Error while fetching server API version"),
            FAILED,
            id="DockerException",
        ),
    ],
)
def test_each_third_party_error_is_blocked_with_its_line(error: Exception, prefix: str) -> None:
    got = blocked(error).diagnostics()
    assert got == prefix + str(error)


def test_image_not_found_says_it_is_never_pulled() -> None:
    error = docker.errors.ImageNotFound("No such image: x:y", response=response(404))
    api = adapter(error)
    with pytest.raises(SandboxBlocked) as caught:
        api.inspect_image("x:y")
    assert caught.value.diagnostics() == (
        "image x:y is not on this daemon; load or build it: the sandbox never pulls"
    )
    assert caught.value.__cause__ is error  # the SDK's text stays on the traceback only


@pytest.mark.parametrize(
    ("call", "doing"),
    [
        ("inspect_image", "inspecting the image"),
        ("attach", "attaching to the container"),
        ("start", "starting the container"),
        ("inspect", "inspecting the container"),
        ("kill", "killing the container"),
        ("remove", "removing the container"),
    ],
)
def test_each_call_says_what_it_was_doing(call: str, doing: str) -> None:
    got = blocked(api_error(500, "boom"), call).diagnostics()
    assert got.startswith(f"the Docker daemon failed while {doing}: ")


def test_create_wait_and_list_say_what_they_were_doing() -> None:
    error = ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
    api = adapter(error)
    calls: list[tuple[str, Callable[[], object]]] = [
        ("building the host config", lambda: api.create({"host_config": {}})),
        ("waiting for the container", lambda: api.wait("c", 30)),
        ("listing sandbox containers", api.list_owned),
        ("checking that it answers", api.ping),
    ]
    for doing, call in calls:
        with pytest.raises(SandboxBlocked, match=f"unreachable while {doing}: "):
            call()


def test_connect_errors_are_blocked() -> None:
    error = docker.errors.TLSParameterError("Path to a certificate and key files must be provided")

    def connect() -> SdkClient:
        raise error

    with pytest.raises(SandboxBlocked, match="failed while connecting: Path to a certificate"):
        DockerApi(connect)


@pytest.mark.parametrize("status", [404, 409])
def test_kill_of_an_exited_or_gone_container_is_fine(status: int) -> None:
    kind = docker.errors.NotFound if status == 404 else docker.errors.APIError
    adapter(api_error(status, "not running", kind)).kill("c")  # no error


def test_kill_refused_otherwise_is_blocked() -> None:
    with pytest.raises(SandboxBlocked, match="failed while killing the container"):
        adapter(api_error(500, "cannot kill")).kill("c")


def test_remove_of_a_gone_container_is_fine() -> None:
    adapter(api_error(404, "No such container", docker.errors.NotFound)).remove("c")


def test_a_bug_is_not_disguised_as_blocked() -> None:
    # Only third-party errors are BLOCKED: a TypeError is ours, and reaches the crash handler.
    bug = TypeError("create_host_config() got an unexpected keyword argument 'x'")
    with pytest.raises(TypeError) as caught:
        adapter(bug).inspect("c")
    assert caught.value is bug


def test_an_interrupt_raised_during_a_call_keeps_its_own_line() -> None:
    interrupted = SandboxBlocked("the runner was interrupted by SIGTERM")
    with pytest.raises(SandboxBlocked) as caught:
        adapter(interrupted).wait("c", 30)
    assert caught.value is interrupted
