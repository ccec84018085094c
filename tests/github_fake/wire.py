"""What goes over the fake's wire: constants, recorded requests, replies, scripted faults.

Also the platform limits GitHub enforces beyond its OpenAPI description and the
``http.server`` handler that feeds raw requests to ``FakeGitHub.handle``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.github_fake.openapi import Json

API_VERSION = "2022-11-28"
TOKEN = "ghs_fake_token_for_tests"
BODY_MAX_BYTES = 8 * 1024 * 1024
CHECK_TEXT_MAX_BYTES = 65535
ANNOTATION_TITLE_MAX_CHARS = 255
ANNOTATION_MESSAGE_MAX_BYTES = 64 * 1024
BLOB_PREFIX = "/_blob/"
DEFAULT_BLOB_SIZE = 10_000


@dataclass(frozen=True)
class Recorded:
    """One request as the fake saw it."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Json
    operation_id: str | None
    headers: dict[str, str]


@dataclass
class Fault:
    """A scripted answer; ``raw`` replaces GitHub's error body (for malformed answers)."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "scripted fault"
    raw: bytes | None = None


@dataclass(frozen=True)
class Reply:
    status: int
    body: Json = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None


def error_body(status: int, message: str) -> Json:
    return {
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": str(status),
    }


def one(query: dict[str, list[str]], name: str, default: str | None = None) -> str | None:
    values = query.get(name)
    return values[0] if values else default


def page(items: list[Json], query: dict[str, list[str]]) -> list[Json]:
    per_page = int(one(query, "per_page", "30") or 30)
    page = int(one(query, "page", "1") or 1)
    return items[(page - 1) * per_page : page * per_page]


def platform_limits(operation_id: str, body: Json) -> list[str]:
    """Limits GitHub enforces that the OpenAPI description states loosely or not at all."""
    if operation_id not in ("checks/create", "checks/update") or not isinstance(body, dict):
        return []
    output = body.get("output")
    if not isinstance(output, dict):
        return []
    problems = []
    for key in ("summary", "text"):
        value = output.get(key)
        if isinstance(value, str) and len(value.encode("utf-8")) > CHECK_TEXT_MAX_BYTES:
            problems.append(f"{operation_id}: output.{key} is over {CHECK_TEXT_MAX_BYTES} bytes")
    for index, annotation in enumerate(output.get("annotations") or []):
        if not isinstance(annotation, dict):
            continue
        if len(annotation.get("title") or "") > ANNOTATION_TITLE_MAX_CHARS:
            problems.append(f"{operation_id}: annotations[{index}].title is over 255 characters")
        for key in ("message", "raw_details"):
            value = annotation.get(key)
            if isinstance(value, str) and len(value.encode()) > ANNOTATION_MESSAGE_MAX_BYTES:
                problems.append(f"{operation_id}: annotations[{index}].{key} is over 64 KB")
    return problems


def handler_for(
    handle: Callable[[str, str, dict[str, str], bytes], Reply],
) -> type[BaseHTTPRequestHandler]:
    """A request handler class that passes each request to ``handle`` (``FakeGitHub.handle``)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # One write per response and no Nagle: otherwise each request waits out a delayed ACK.
        wbufsize = 1 << 16
        disable_nagle_algorithm = True

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length > BODY_MAX_BYTES:
                self._send(Reply(413, error_body(413, "too large")))
                self.close_connection = True
                return
            body = self.rfile.read(length) if length else b""
            headers = {key.lower(): value for key, value in self.headers.items()}
            self._send(handle(self.command, self.path, headers, body))

        def _send(self, reply: Reply) -> None:
            data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            headers = {"content-type": "application/json; charset=utf-8", **reply.headers}
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def rate_limited(retry_after: float | None = None, reset_in: float = 1.0) -> Fault:
    """A primary (x-ratelimit-*) or secondary (retry-after) rate-limit answer."""
    if retry_after is not None:
        return Fault(429, {"retry-after": str(int(retry_after))}, "secondary rate limit")
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(time.time() + reset_in))}
    return Fault(403, headers, "API rate limit exceeded")
