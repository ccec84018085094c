"""A loopback stand-in for the GitHub REST API that checks every request against the spec.

``FakeGitHub`` serves on 127.0.0.1 at an ephemeral port (a threading ``http.server``). Every
request is recorded; every request is checked against GitHub's OpenAPI description (route,
method, path and query parameters, JSON body) and against the platform limits the spec does
not carry (check-run text in **bytes**, annotation title length). A request that fails is
answered 404/405/422 like GitHub would **and** kept in ``violations``, which the pytest fixture
turns into a test failure, so a client bug cannot hide behind a lenient fake. The fake's own
answers are built from the spec's examples and checked against the response schemas too.

Only the operations verify-pr uses are implemented; any other valid operation answers 501
and is a violation. ``fail_next`` scripts faults (rate limits, 5xx) for the retry tests.
Artifact downloads redirect to ``/_blob/<token>`` like GitHub's signed storage URLs; a request
there that carries an ``Authorization`` header is a violation (the token must not follow).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.github_fake.openapi import Json, Match, OpenApi, webhook_examples
from tests.github_fake.operations import Operations

# Public names of this module before the split; tests import them from here.
from tests.github_fake.wire import (
    API_VERSION,
    BLOB_PREFIX,
    TOKEN,
    Fault,
    Recorded,
    Reply,
    error_body,
    handler_for,
    platform_limits,
    rate_limited,
)

__all__ = [
    "API_VERSION",
    "TOKEN",
    "FakeGitHub",
    "Fault",
    "Recorded",
    "Reply",
    "error_body",
    "rate_limited",
]


class FakeGitHub(Operations):
    """State, the request pipeline and the server thread; use as a context manager.

    The operations themselves are in ``Operations`` (tests/github_fake/operations.py).
    """

    def __init__(self, api: OpenApi, *, token: str = TOKEN) -> None:
        self.api = api
        self.token = token
        self.requests: list[Recorded] = []
        self.violations: list[str] = []
        self.check_runs: dict[int, Json] = {}
        self.annotations: dict[int, list[Json]] = {}
        self.artifacts: dict[int, tuple[int, str, bytes]] = {}
        self.pull_files: dict[int, list[str]] = {}
        self.artifact_heads: dict[int, str] = {}
        # PRs: (number, head "owner:branch", head sha, head repository id[, base repository
        # id[, state]]); the base defaults to ``repository_id`` (this repository), state "open".
        self.pulls: list[tuple[Any, ...]] = []
        # "This repository": by default the one of the workflow_run webhook example, which is
        # what every test's event is built from; a PR's base is this repository unless given.
        self.repository_id: int | None = _example_repository_id()
        # git tree blob sizes by path (default ``DEFAULT_BLOB_SIZE``)
        self.blob_sizes: dict[str, int] = {}
        self.trees: dict[str, list[str]] = {}
        self._blobs: dict[str, bytes] = {}
        self._faults: dict[str, list[Fault]] = {}
        self._next_id = 1000
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(self.handle))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- test controls -------------------------------------------------------------------

    def fail_next(self, operation_id: str, fault: Fault, times: int = 1) -> None:
        """Answer the next ``times`` requests to ``operation_id`` with ``fault``."""
        with self._lock:
            self._faults.setdefault(operation_id, []).extend([fault] * times)

    def add_artifact(self, run_id: int, name: str, data: bytes, head_sha: str | None = None) -> int:
        with self._lock:
            artifact_id = self._new_id()
            self.artifacts[artifact_id] = (run_id, name, data)
            if head_sha is not None:
                self.artifact_heads[artifact_id] = head_sha
        return artifact_id

    def take_violations(self) -> list[str]:
        """Return and clear the violations (for tests that provoke them on purpose)."""
        with self._lock:
            taken, self.violations = self.violations, []
        return taken

    def calls(self, operation_id: str) -> list[Recorded]:
        return [r for r in self.requests if r.operation_id == operation_id]

    # -- request pipeline ----------------------------------------------------------------

    def handle(self, method: str, target: str, headers: dict[str, str], body: bytes) -> Reply:
        url = urlsplit(target)
        query = parse_qs(url.query, keep_blank_values=True)
        if url.path.startswith(BLOB_PREFIX):
            return self._blob(method, url.path, headers)
        found, document, problems = self.api.check_request(
            method, url.path, query, body, headers.get("content-type", "")
        )
        operation_id = found.operation.operation_id if found else None
        problems += self._check_headers(headers)
        if found is not None and document is not None:
            problems += platform_limits(operation_id or "", document)
        with self._lock:
            self.requests.append(
                Recorded(method, url.path, query, document, operation_id, dict(headers))
            )
            self.violations += problems
        if found is None:
            status = 405 if problems and "not allowed" in problems[0] else 404
            return Reply(status, error_body(status, "Not Found"))
        if problems:
            return Reply(422, error_body(422, "Validation Failed: " + "; ".join(problems)))
        with self._lock:
            queue = self._faults.get(found.operation.operation_id, [])
            fault = queue.pop(0) if queue else None
        if fault is not None:
            body = error_body(fault.status, fault.message) if fault.raw is None else None
            return Reply(fault.status, body, fault.headers, raw=fault.raw)
        return self._dispatch(found, query, document)

    def _check_headers(self, headers: dict[str, str]) -> list[str]:
        problems = []
        if headers.get("authorization") != f"Bearer {self.token}":
            problems.append("request without the expected 'Authorization: Bearer' token")
        if "application/vnd.github+json" not in headers.get("accept", ""):
            problems.append("request without 'Accept: application/vnd.github+json'")
        if headers.get("x-github-api-version") != API_VERSION:
            problems.append(f"request without 'X-GitHub-Api-Version: {API_VERSION}'")
        return problems

    def _dispatch(self, found: Match, query: dict[str, list[str]], document: Json) -> Reply:
        operation = found.operation
        handler: Callable[[dict[str, str], dict[str, list[str]], Json], Reply] | None = getattr(
            self, "_op_" + operation.operation_id.replace("/", "_").replace("-", "_"), None
        )
        if handler is None:
            problem = f"{operation.operation_id}: valid, but not implemented by the fake"
            with self._lock:
                self.violations.append(problem)
            return Reply(501, error_body(501, problem))
        try:
            with self._lock:
                reply = handler(found.path_params, query, document)
        except Exception as exc:  # a bug in the fake must fail the test, not hang it
            problem = f"{operation.operation_id}: the fake crashed: {exc!r}"
            with self._lock:
                self.violations.append(problem)
            return Reply(500, error_body(500, problem))
        if reply.raw is None and 200 <= reply.status < 300:
            drift = self.api.check_response(operation, reply.status, reply.body)
            with self._lock:
                self.violations += drift
        return reply

    def _blob(self, method: str, path: str, headers: dict[str, str]) -> Reply:
        with self._lock:
            if "authorization" in headers:
                self.violations.append("the API token was sent to the artifact storage URL")
            self.requests.append(Recorded(method, path, {}, None, "blob", dict(headers)))
            data = self._blobs.get(path.removeprefix(BLOB_PREFIX))
        if method != "GET" or data is None:
            return Reply(404, raw=b"")
        return Reply(200, headers={"content-type": "application/zip"}, raw=data)


def _example_repository_id() -> int:
    example = next(e for e in webhook_examples()["workflow_run"] if e.get("action") == "completed")
    return int(example["repository"]["id"])
