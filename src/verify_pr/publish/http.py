"""The HTTP layer under the GitHub client: ``httpx`` with our own retry policy.

One job: send a request, retry only when that is safe, and turn every ``httpx`` error and
every unexpected answer into ``GitHubApiError`` (``from exc``) so no ``httpx`` type leaves.

- A rate-limited answer (429, or 403 with ``retry-after`` or ``x-ratelimit-remaining: 0``) is
  waited out for any method, since GitHub did not act on it, honouring ``retry-after`` (seconds
  or an HTTP date) and ``x-ratelimit-reset``; a wait over ``max_rate_limit_wait_s`` fails now.
- A GET is retried with exponential backoff on 5xx and on transport errors.
- A POST or PATCH is never retried blindly: a timeout may hide a check run that was created,
  and PATCHed annotations are appended.
- Every request has a total deadline (``deadline.DeadlineTransport``), not only a per-read
  timeout, and a request that ran out of time is not retried. Every answer's body is read
  under a byte cap. Numbers from headers (``retry-after``, ``x-ratelimit-reset``,
  ``content-length``) must be finite; a wait is never negative and never above
  ``max_rate_limit_wait_s``. An error body is read only when small and shallow.

Artifact storage (the signed URL a download redirects to) is fetched with a second client that
carries no ``Authorization`` header, streamed under a byte cap.
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from verify_pr import __version__
from verify_pr.errors import GitHubApiError, ReportError
from verify_pr.publish.bounded_json import JsonLimits, JsonRefused, scan
from verify_pr.publish.deadline import DeadlineTransport, past_deadline, request_deadline

API_VERSION = "2022-11-28"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
API_DEADLINE_S = 60.0
"""Total time for one API request, headers and body."""
DOWNLOAD_DEADLINE_S = 300.0
"""Total time for the artifact download (at most 16 MiB)."""
API_BODY_MAX_BYTES = 32 * 1024 * 1024
ERROR_MESSAGE_MAX_CHARS = 300
ERROR_BODY_LIMITS = JsonLimits(max_bytes=64 * 1024, max_depth=8, max_containers=256)
_DROPPED_HEADERS = frozenset({b"content-encoding", b"content-length", b"transfer-encoding"})

_ModelT = TypeVar("_ModelT", bound=BaseModel)


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    max_rate_limit_wait_s: float = 120.0
    secondary_rate_limit_wait_s: float = 60.0

    def backoff(self, attempt: int) -> float:
        return float(min(self.backoff_base_s * 2 ** (attempt - 1), self.backoff_max_s))


def _hint(status: int) -> str:
    return {
        401: "the token is missing, expired or invalid",
        403: "the token lacks a permission (publish needs checks: write and actions: read)",
        404: "not found, or the token cannot see it",
        410: "the artifact has expired",
        422: "GitHub refused the request; this is a verify-pr bug",
    }.get(status, "")


class RestHttp:
    """Authenticated API requests and unauthenticated storage downloads, with retries."""

    def __init__(
        self,
        *,
        token: str,
        base_url: str,
        transport: httpx.BaseTransport | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
        deadline_s: float = API_DEADLINE_S,
    ) -> None:
        self.origin = httpx.URL(base_url)
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        self._deadline_s = deadline_s
        user_agent = f"verify-pr/{__version__}"
        # One transport (one TLS context, one pool) serves both clients below.
        transport = transport or DeadlineTransport()
        self._api = httpx.Client(
            base_url=base_url,
            transport=transport,
            timeout=timeout,
            follow_redirects=False,
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": API_VERSION,
                "User-Agent": user_agent,
            },
        )
        # Artifact storage gets no token: a separate client without the Authorization header.
        self._storage = httpx.Client(
            transport=transport,
            timeout=timeout,
            follow_redirects=False,
            headers={"User-Agent": user_agent},
        )

    def close(self) -> None:
        self._api.close()
        self._storage.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, str] | None = None,
        json: dict[str, Any] | None = None,
        expect: tuple[int, ...] = (200,),
    ) -> httpx.Response:
        idempotent = method == "GET"
        attempts = self._retry.max_attempts
        for attempt in range(1, attempts + 1):
            deadline = math.inf
            try:
                with request_deadline(self._deadline_s) as deadline:
                    response = self._send(method, path, params, json)
            except httpx.TransportError as exc:
                if past_deadline(deadline):
                    raise GitHubApiError(
                        f"{method} {path}: no complete answer within {self._deadline_s:.0f} s"
                    ) from exc
                if idempotent and attempt < attempts:
                    self._sleep(self._retry.backoff(attempt))
                    continue
                raise GitHubApiError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
            except httpx.HTTPError as exc:
                raise GitHubApiError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
            wait = self._rate_limit_wait(response)
            if wait is not None and attempt < attempts:
                if not 0.0 <= wait <= self._retry.max_rate_limit_wait_s:
                    raise GitHubApiError(
                        f"{method} {path}: rate limited for {wait:.0f} s",
                        hint="try again after the rate limit resets",
                    )
                self._sleep(wait)
                continue
            if response.status_code >= 500 and idempotent and attempt < attempts:
                self._sleep(self._retry.backoff(attempt))
                continue
            if response.status_code not in expect:
                raise self._error(method, path, response)
            return response
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _send(
        self, method: str, path: str, params: dict[str, str] | None, body: dict[str, Any] | None
    ) -> httpx.Response:
        """One request, its body read under ``API_BODY_MAX_BYTES`` (inside the deadline)."""
        request = self._api.build_request(method, path, params=params, json=body)
        streamed = self._api.send(request, stream=True)
        try:
            data = bytearray()
            for chunk in streamed.iter_bytes():
                data += chunk
                if len(data) > API_BODY_MAX_BYTES:
                    raise GitHubApiError(
                        f"{method} {path}: the answer is over {API_BODY_MAX_BYTES} bytes"
                    )
        finally:
            streamed.close()
        headers = [(k, v) for k, v in streamed.headers.raw if k.lower() not in _DROPPED_HEADERS]
        return httpx.Response(
            streamed.status_code, headers=headers, content=bytes(data), request=request
        )

    def _rate_limit_wait(self, response: httpx.Response) -> float | None:
        """Seconds to wait when GitHub rate-limited the request, else None; always finite.

        A header that is not a finite number (``nan``, ``inf``, ``1e999``, garbage) is a
        malformed answer: refused at once rather than guessed.
        """
        if response.status_code not in (403, 429):
            return None
        headers = response.headers
        retry_after = headers.get("retry-after")
        if retry_after is not None:
            seconds = self._parse_retry_after(retry_after)
            if seconds is None:
                raise _unreadable("retry-after", retry_after)
            return max(seconds, 0.0)
        if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
            reset = finite_number(headers["x-ratelimit-reset"])
            if reset is None:
                raise _unreadable("x-ratelimit-reset", headers["x-ratelimit-reset"])
            return max(reset - self._clock(), 0.0) + 1.0
        if response.status_code == 429:
            return self._retry.secondary_rate_limit_wait_s
        return None

    def _parse_retry_after(self, value: str) -> float | None:
        """Seconds from a ``retry-after`` (seconds or an HTTP date), or None if unreadable."""
        seconds = finite_number(value)
        if seconds is not None:
            return seconds
        try:
            left = email.utils.parsedate_to_datetime(value).timestamp() - self._clock()
        except (TypeError, ValueError, OverflowError, OSError):
            return None
        return left if math.isfinite(left) else None

    def fetch_capped(self, url: httpx.URL, max_bytes: int) -> bytes:
        attempts = self._retry.max_attempts
        for attempt in range(1, attempts + 1):
            deadline = math.inf
            try:
                with (
                    request_deadline(DOWNLOAD_DEADLINE_S) as deadline,
                    self._storage.stream("GET", url) as response,
                ):
                    if response.status_code >= 500 and attempt < attempts:
                        self._sleep(self._retry.backoff(attempt))
                        continue
                    if response.status_code != 200:
                        raise GitHubApiError(f"artifact storage answered {response.status_code}")
                    declared = finite_number(response.headers.get("content-length") or "0")
                    if declared is None or declared > max_bytes:
                        raise _too_large(max_bytes)
                    data = bytearray()
                    for chunk in response.iter_bytes():
                        data += chunk
                        if len(data) > max_bytes:
                            raise _too_large(max_bytes)
                    return bytes(data)
            except httpx.TransportError as exc:
                if past_deadline(deadline):
                    raise GitHubApiError(
                        f"artifact download: not complete within {DOWNLOAD_DEADLINE_S:.0f} s"
                    ) from exc
                if attempt < attempts:
                    self._sleep(self._retry.backoff(attempt))
                    continue
                raise GitHubApiError(f"artifact download: {type(exc).__name__}: {exc}") from exc
            except httpx.HTTPError as exc:
                raise GitHubApiError(f"artifact download: {type(exc).__name__}: {exc}") from exc
        raise GitHubApiError("artifact storage kept failing")

    @staticmethod
    def _error(method: str, path: str, response: httpx.Response) -> GitHubApiError:
        message = _error_message(response.content)[:ERROR_MESSAGE_MAX_CHARS]
        status = response.status_code
        return GitHubApiError(
            f"{method} {path} answered {status}: {message}".rstrip(": "), hint=_hint(status)
        )

    @staticmethod
    def parse(model: type[_ModelT], response: httpx.Response) -> _ModelT:
        try:
            return model.model_validate_json(response.content)
        except ValidationError as exc:
            raise GitHubApiError(
                f"unexpected answer from {response.request.url.path}: "
                f"{exc.error_count()} problem(s)"
            ) from exc


def finite_number(value: str) -> float | None:
    """A header's number, or None when it is not a plain finite number (nan, inf, 1e999...)."""
    try:
        number = float(value.strip()[:64])
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _unreadable(header: str, value: str) -> GitHubApiError:
    return GitHubApiError(
        f"rate limited, with an unreadable {header} header {value[:40]!r}",
        hint="try again after the rate limit resets",
    )


def _error_message(body: bytes) -> str:
    """GitHub's ``message`` from an error body: only from a small, shallow JSON object."""
    try:
        scan(body, ERROR_BODY_LIMITS)
        parsed = json.loads(body)
    except (JsonRefused, ValueError, RecursionError):
        return ""
    message = parsed.get("message") if isinstance(parsed, dict) else None
    return message if isinstance(message, str) else ""


def _too_large(max_bytes: int) -> ReportError:
    return ReportError(
        f"artifact refused: the download is over {max_bytes} bytes",
        hint="the verify job's artifact is not trusted",
    )
