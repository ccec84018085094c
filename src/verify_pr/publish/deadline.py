"""A total deadline on each HTTP request, not a per-read timeout.

httpx's timeouts apply to each read: an answer trickled a byte every few seconds never ends.
``DeadlineTransport`` is httpx's own transport over a network backend whose every connect,
read and write gets at most the time left before the current request's deadline (set by
``request_deadline`` around one request, in this thread), and fails at once past it. Python's
TLS reads keep one deadline across their internal retries, so a record trickled byte by byte
is cut off too.
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx


class _Deadline(threading.local):
    at: float | None = None


_CURRENT = _Deadline()


@contextmanager
def request_deadline(seconds: float) -> Iterator[float]:
    """Everything sent or received inside the block ends by ``seconds`` from now."""
    outer = _CURRENT.at
    _CURRENT.at = time.monotonic() + seconds
    try:
        yield _CURRENT.at
    finally:
        _CURRENT.at = outer


def past_deadline(at: float) -> bool:
    return time.monotonic() >= at


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    at = _CURRENT.at
    if at is None:
        return timeout
    remaining = at - time.monotonic()
    if remaining <= 0:
        raise error("the request's total deadline passed")
    return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.start_tls(
            ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)
        )
        return _DeadlineStream(inner)

    def get_extra_info(self, info: str) -> Any:  # noqa: ANN401 - httpcore's own signature
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.connect_tcp(
            host, port, _left(timeout, httpcore.ConnectTimeout), local_address, socket_options
        )
        return _DeadlineStream(inner)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        inner = self._inner.connect_unix_socket(
            path, _left(timeout, httpcore.ConnectTimeout), socket_options
        )
        return _DeadlineStream(inner)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """``httpx.HTTPTransport`` (no proxy), its pool over the deadline backend."""

    def __init__(self) -> None:
        super().__init__()
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=10,
            max_keepalive_connections=10,
            keepalive_expiry=5.0,
            network_backend=_DeadlineBackend(),
        )
