"""The only module that talks to the Docker SDK; its errors leave as verify-pr errors.

Built on the low-level ``docker.APIClient``: ``create_container`` never pulls, and its response
carries the daemon's ``Warnings`` (a dropped limit), which the high-level API discards. The
errors of the SDK and its transport are mapped by type to :class:`SandboxBlocked` where they are
caught (:func:`_blocked_from`); any other exception is a bug, and is not disguised as BLOCKED.
"""

from __future__ import annotations

import errno
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, Protocol, TypeVar

from verify_pr.errors import SandboxBlocked

T = TypeVar("T")
API_TIMEOUT_S = 60
# Engine 20.10's API: fixed, so no version round trip on every run; newer engines accept it.
API_VERSION = "1.41"
# The daemon reports these only in its message text (an APIError 500 carries no finer type).
_RESOURCE_WORDS = ("no space left", "cannot allocate memory", "too many", "resource temporarily")
_RESOURCE_ERRNOS = frozenset({errno.ENOSPC, errno.ENOMEM, errno.EMFILE, errno.ENFILE, errno.EAGAIN})


def third_party_errors() -> tuple[type[Exception], ...]:
    """What the SDK and its transport raise: the roots of docker's, requests', urllib3's and
    http.client's errors, and OSError. Anything else is a bug, and is left to crash."""
    import http.client

    import docker.errors
    import requests.exceptions
    import urllib3.exceptions

    return (
        docker.errors.DockerException,
        requests.exceptions.RequestException,
        urllib3.exceptions.HTTPError,
        http.client.HTTPException,
        OSError,
    )


def _out_of_resources(exc: BaseException) -> bool:
    """An errno of exhaustion on the error or beneath requests' and urllib3's wrappers (which
    carry the OSError in their args or ``reason``)."""
    pending: list[BaseException] = [exc]
    for _ in range(8):  # the wrappers nest two or three deep; a cycle must not spin
        if not pending:
            break
        current = pending.pop()
        if isinstance(current, OSError) and current.errno in _RESOURCE_ERRNOS:
            return True
        inner = [*current.args, getattr(current, "reason", None)]
        pending.extend(a for a in inner if isinstance(a, BaseException) and a is not current)
    return False


def _blocked_from(exc: Exception, doing: str, image: str | None = None) -> SandboxBlocked:
    """Map one third-party error, by its type, to the user's one line.

    ImageNotFound: not on this daemon, said without the SDK's URL and status text. APIError (the
    daemon answered): out of resources when its message says so (the only place it does), else
    failed. An errno of exhaustion: out of
    resources. requests' errors (OSError subclasses, as is all the transport raises), urllib3's
    ProtocolError and OSError: unreachable. Any other DockerException or HTTP error: failed.
    """
    import docker.errors
    import urllib3.exceptions

    if isinstance(exc, docker.errors.ImageNotFound):
        return SandboxBlocked(
            f"image {image or 'of the sandbox'} is not on this daemon; "
            "load or build it: the sandbox never pulls"
        )
    if isinstance(exc, docker.errors.APIError):
        said = str(exc.explanation or exc).lower()
        exhausted = any(word in said for word in _RESOURCE_WORDS)
    else:
        exhausted = _out_of_resources(exc)
    if exhausted:
        return SandboxBlocked(f"the Docker daemon is out of resources while {doing}: {exc}")
    unanswered = OSError | urllib3.exceptions.ProtocolError
    if isinstance(exc, unanswered) and not isinstance(exc, docker.errors.APIError):
        return SandboxBlocked(f"the Docker daemon is unreachable while {doing}: {exc}")
    return SandboxBlocked(f"the Docker daemon failed while {doing}: {exc}")


class SdkClient(Protocol):
    """The calls this adapter makes on ``docker.APIClient`` (a test passes a fake)."""

    def ping(self) -> object: ...
    def inspect_image(self, image: str, /) -> dict[str, Any]: ...
    def create_host_config(self, **kwargs: Any) -> dict[str, Any]: ...  # noqa: ANN401
    def create_container(self, **kwargs: Any) -> dict[str, Any]: ...  # noqa: ANN401
    def attach_socket(self, container: str, params: dict[str, int], /) -> Any: ...  # noqa: ANN401
    def start(self, container: str, /) -> object: ...
    def wait(self, container: str, timeout: int, /) -> dict[str, Any]: ...
    def inspect_container(self, container: str, /) -> dict[str, Any]: ...
    def containers(self, *, all: bool, filters: dict[str, str]) -> list[dict[str, Any]]: ...
    def kill(self, container: str, /) -> object: ...
    def remove_container(self, container: str, /, *, force: bool, v: bool) -> object: ...
    def close(self) -> None: ...


def _sdk_client() -> SdkClient:
    import docker
    import docker.utils

    client: SdkClient = docker.APIClient(
        timeout=API_TIMEOUT_S, version=API_VERSION, **docker.utils.kwargs_from_env()
    )
    return client


class AttachedStream:
    """The attach connection: the SDK hands back a SocketIO on unix sockets, and writing the
    nonce needs the socket beneath it (private ``_sock``: the SDK version is pinned)."""

    def __init__(self, sock: Any) -> None:  # noqa: ANN401 (the SDK's type varies by transport)
        self._wrapper = sock
        self.raw: socket.socket = getattr(sock, "_sock", sock)

    def close(self) -> None:
        for closable in (getattr(self._wrapper, "_response", None), self._wrapper, self.raw):
            if closable is not None:
                with suppress(OSError, ValueError):
                    closable.close()


class DockerApi:
    """A thin adapter: each call maps SDK and transport errors to SandboxBlocked, by type.

    Implements :class:`~verify_pr.sandbox.container_api.ContainerApi` and ``KillApi``.
    """

    def __init__(self, connect: Callable[[], SdkClient] = _sdk_client) -> None:
        try:
            self._client = connect()
        except third_party_errors() as exc:
            raise _blocked_from(exc, "connecting") from exc

    def call(self, doing: str, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        try:
            return fn(*args, **kwargs)
        except third_party_errors() as exc:
            raise _blocked_from(exc, doing) from exc

    def ping(self) -> None:
        self.call("checking that it answers", self._client.ping)

    def inspect_image(self, image: str) -> dict[str, Any]:
        try:
            return self._client.inspect_image(image)
        except third_party_errors() as exc:
            raise _blocked_from(exc, "inspecting the image", image) from exc

    def create(self, kwargs: dict[str, Any]) -> tuple[str, list[str]]:
        host_config = self.call(
            "building the host config", self._client.create_host_config, **kwargs["host_config"]
        )
        args = {**kwargs, "host_config": host_config}
        created = self.call("creating the container", self._client.create_container, **args)
        return str(created["Id"]), list(created.get("Warnings") or [])

    def attach(self, container_id: str) -> AttachedStream:
        params = {"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
        sock = self.call(
            "attaching to the container", self._client.attach_socket, container_id, params
        )
        return AttachedStream(sock)

    def start(self, container_id: str) -> None:
        self.call("starting the container", self._client.start, container_id)

    def wait(self, container_id: str, timeout_s: int) -> int:
        status = self.call("waiting for the container", self._client.wait, container_id, timeout_s)
        return int(status["StatusCode"])

    def inspect(self, container_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self.call(
            "inspecting the container", self._client.inspect_container, container_id
        )
        return result

    def list_owned(self) -> list[tuple[str, str]]:
        """(full id, owner label) of every container, running or not, that has an owner."""
        from verify_pr.sandbox.policy import LABEL_OWNER

        found = self.call(
            "listing sandbox containers",
            self._client.containers,
            all=True,
            filters={"label": LABEL_OWNER},
        )
        return [(str(c["Id"]), str((c.get("Labels") or {}).get(LABEL_OWNER, ""))) for c in found]

    def kill(self, container_id: str) -> None:
        """Kill by full id; a container that already exited (409) or is gone (404) is fine."""
        import docker.errors

        try:
            self._client.kill(container_id)
        except docker.errors.APIError as exc:
            if exc.status_code not in (404, 409):
                raise _blocked_from(exc, "killing the container") from exc
        except third_party_errors() as exc:
            raise _blocked_from(exc, "killing the container") from exc

    def remove(self, container_id: str) -> None:
        import docker.errors

        try:
            self._client.remove_container(container_id, force=True, v=True)
        except docker.errors.NotFound:
            pass
        except third_party_errors() as exc:
            raise _blocked_from(exc, "removing the container") from exc

    def close(self) -> None:
        self._client.close()


@contextmanager
def docker_api() -> Iterator[DockerApi]:
    api = DockerApi()
    try:
        yield api
    finally:
        api.close()
