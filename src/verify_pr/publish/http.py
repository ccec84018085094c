"""The HTTP layer under the GitHub client: ``httpx`` with our own retry policy.

One job: send a request, retry only when that is safe, and turn every ``httpx`` error and
every unexpected answer into ``GitHubApiError`` (``from exc``) so no ``httpx`` type leaves.

- A rate-limited answer (429, or 403 with ``retry-after`` or ``x-ratelimit-remaining: 0``) is
  waited out for any method, since GitHub did not act on it, honouring ``retry-after`` (seconds
  or an HTTP date) and ``x-ratelimit-reset``; a wait over ``max_rate_limit_wait_s`` fails now.
- A GET is retried with exponential backoff on 5xx and on transport errors.
- A POST or PATCH is never retried blindly: a timeout may hide a check run that was created,
  and PATCHed annotations are appended.

Artifact storage (the signed URL a download redirects to) is fetched with a second client that
carries no ``Authorization`` header, streamed under a byte cap.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from verify_pr import __version__
from verify_pr.errors import GitHubApiError, ReportError

API_VERSION = "2022-11-28"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
ERROR_MESSAGE_MAX_CHARS = 300

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
    ) -> None:
        self.origin = httpx.URL(base_url)
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._clock = clock
        user_agent = f"verify-pr/{__version__}"
        # One transport (one TLS context, one pool) serves both clients below.
        transport = transport or httpx.HTTPTransport()
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
            try:
                response = self._api.request(method, path, params=params, json=json)
            except httpx.TransportError as exc:
                if idempotent and attempt < attempts:
                    self._sleep(self._retry.backoff(attempt))
                    continue
                raise GitHubApiError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
            except httpx.HTTPError as exc:
                raise GitHubApiError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc
            wait = self._rate_limit_wait(response)
            if wait is not None and attempt < attempts:
                if wait > self._retry.max_rate_limit_wait_s:
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

    def _rate_limit_wait(self, response: httpx.Response) -> float | None:
        """Seconds to wait when GitHub rate-limited the request, else None."""
        if response.status_code not in (403, 429):
            return None
        headers = response.headers
        retry_after = headers.get("retry-after")
        if retry_after is not None:
            return max(self._parse_retry_after(retry_after), 0.0)
        if headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
            try:
                reset = float(headers["x-ratelimit-reset"])
            except ValueError:
                reset = self._clock() + self._retry.secondary_rate_limit_wait_s
            return max(reset - self._clock(), 0.0) + 1.0
        if response.status_code == 429:
            return self._retry.secondary_rate_limit_wait_s
        return None

    def _parse_retry_after(self, value: str) -> float:
        try:
            return float(value)
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return self._retry.secondary_rate_limit_wait_s
        return when.timestamp() - self._clock()

    def fetch_capped(self, url: httpx.URL, max_bytes: int) -> bytes:
        attempts = self._retry.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                with self._storage.stream("GET", url) as response:
                    if response.status_code >= 500 and attempt < attempts:
                        self._sleep(self._retry.backoff(attempt))
                        continue
                    if response.status_code != 200:
                        raise GitHubApiError(f"artifact storage answered {response.status_code}")
                    declared = int(response.headers.get("content-length") or 0)
                    if declared > max_bytes:
                        raise _too_large(max_bytes)
                    data = bytearray()
                    for chunk in response.iter_bytes():
                        data += chunk
                        if len(data) > max_bytes:
                            raise _too_large(max_bytes)
                    return bytes(data)
            except httpx.TransportError as exc:
                if attempt < attempts:
                    self._sleep(self._retry.backoff(attempt))
                    continue
                raise GitHubApiError(f"artifact download: {type(exc).__name__}: {exc}") from exc
            except httpx.HTTPError as exc:
                raise GitHubApiError(f"artifact download: {type(exc).__name__}: {exc}") from exc
        raise GitHubApiError("artifact storage kept failing")

    @staticmethod
    def _error(method: str, path: str, response: httpx.Response) -> GitHubApiError:
        try:
            message = str(response.json().get("message", ""))
        except (ValueError, AttributeError):
            message = ""
        message = message[:ERROR_MESSAGE_MAX_CHARS]
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


def _too_large(max_bytes: int) -> ReportError:
    return ReportError(
        f"artifact refused: the download is over {max_bytes} bytes",
        hint="the verify job's artifact is not trusted",
    )
