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

import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.github_fake.openapi import Json, Match, OpenApi, webhook_examples

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


class FakeGitHub:
    """State, handlers and the server thread; use as a context manager."""

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
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
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

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

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
            problems += _platform_limits(operation_id or "", document)
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

    # -- operations (called with the lock held) ------------------------------------------

    def _op_checks_create(self, params: dict[str, str], _q: Any, body: Json) -> Reply:
        run = self.api.example(self._operation("POST", "/repos/o/r/check-runs"), 201)
        check_id = self._new_id()
        run.update(
            id=check_id,
            name=body["name"],
            head_sha=body["head_sha"],
            external_id=body.get("external_id", ""),
            status=body.get("status", "queued"),
            conclusion=body.get("conclusion"),
            pull_requests=[],
        )
        run["output"].update(title=None, summary=None, text=None, annotations_count=0)
        self.check_runs[check_id] = run
        self.annotations[check_id] = []
        self._apply(run, body)
        return Reply(201, run)

    def _op_checks_update(self, params: dict[str, str], _q: Any, body: Json) -> Reply:
        run = self.check_runs.get(int(params["check_run_id"]))
        if run is None:
            return Reply(404, error_body(404, "Not Found"))
        self._apply(run, body)
        return Reply(200, run)

    def _apply(self, run: Json, body: Json) -> None:
        for key in (
            "name",
            "status",
            "conclusion",
            "external_id",
            "details_url",
            "started_at",
            "completed_at",
        ):
            if key in body:
                run[key] = body[key]
        if body.get("conclusion") is not None:
            run["status"] = "completed"
        output = body.get("output")
        if output:
            for key in ("title", "summary", "text"):
                if key in output:
                    run["output"][key] = output[key]
            self.annotations[run["id"]] += output.get("annotations", [])
            run["output"]["annotations_count"] = len(self.annotations[run["id"]])

    def _op_checks_list_for_ref(self, params: dict[str, str], query: Any, _b: Any) -> Reply:
        name = _one(query, "check_name")
        runs = [r for r in self.check_runs.values() if r["head_sha"] == params["ref"]]
        if name is not None:
            runs = [r for r in runs if r["name"] == name]
        if _one(query, "filter", "latest") == "latest":
            newest: dict[str, Json] = {}
            for run in runs:
                newest[run["name"]] = run
            runs = list(newest.values())
        runs.sort(key=lambda r: -r["id"])
        return Reply(200, {"total_count": len(runs), "check_runs": _page(runs, query)})

    def _op_actions_list_workflow_run_artifacts(
        self, params: dict[str, str], query: Any, _b: Any
    ) -> Reply:
        template = self.api.example(
            self._operation("GET", "/repos/o/r/actions/runs/1/artifacts"), 200
        )["artifacts"][0]
        name = _one(query, "name")
        found = []
        for artifact_id, (run_id, artifact_name, data) in sorted(self.artifacts.items()):
            if run_id != int(params["run_id"]) or name not in (None, artifact_name):
                continue
            item = json.loads(json.dumps(template))
            item.update(
                id=artifact_id,
                name=artifact_name,
                size_in_bytes=len(data),
                expired=False,
                archive_download_url=f"{self.base_url}/repos/{params['owner']}/"
                f"{params['repo']}/actions/artifacts/{artifact_id}/zip",
            )
            item["workflow_run"]["id"] = run_id
            if artifact_id in self.artifact_heads:
                item["workflow_run"]["head_sha"] = self.artifact_heads[artifact_id]
            found.append(item)
        return Reply(200, {"total_count": len(found), "artifacts": _page(found, query)})

    def _op_actions_download_artifact(self, params: dict[str, str], _q: Any, _b: Any) -> Reply:
        artifact = self.artifacts.get(int(params["artifact_id"]))
        if artifact is None or params["archive_format"] != "zip":
            return Reply(404, error_body(404, "Not Found"))
        blob = secrets.token_urlsafe(16)
        self._blobs[blob] = artifact[2]
        return Reply(302, headers={"location": f"{self.base_url}{BLOB_PREFIX}{blob}"}, raw=b"")

    def _diff_entries(self, names: list[str]) -> list[Json]:
        operation = self._operation("GET", "/repos/o/r/pulls/1/files")
        template = self.api.example(operation, 200)[0]
        return [{**template, "filename": name} for name in names]

    def _op_pulls_list_files(self, params: dict[str, str], query: Any, _b: Any) -> Reply:
        names = self.pull_files.get(int(params["pull_number"]))
        if names is None:
            return Reply(404, error_body(404, "Not Found"))
        return Reply(200, _page(self._diff_entries(names), query))

    def _pull_items(self, template: Json) -> list[tuple[str, str, Json]]:
        """Every PR as (head label, head sha, item built on ``template``)."""
        items = []
        for entry in self.pulls:
            number, pull_head, sha, repo_id = entry[:4]
            base_id = entry[4] if len(entry) > 4 and entry[4] is not None else self.repository_id
            item = json.loads(json.dumps(template))
            item["number"] = number
            item["state"] = entry[5] if len(entry) > 5 else "open"
            item["requested_teams"] = []  # the spec's own example lacks a required field
            item["head"].update(sha=sha, label=pull_head, ref=pull_head.split(":", 1)[-1])
            item["head"]["repo"]["id"] = repo_id
            if base_id is not None:
                item["base"]["repo"]["id"] = base_id
            items.append((pull_head, sha, item))
        return items

    def _op_pulls_list(self, params: dict[str, str], query: Any, _b: Any) -> Reply:
        template = self.api.example(self._operation("GET", "/repos/o/r/pulls"), 200)[0]
        head = _one(query, "head")
        state = _one(query, "state", "open")
        found = [
            item
            for label, _sha, item in self._pull_items(template)
            if head in (None, label) and state in ("all", item["state"])
        ]
        return Reply(200, _page(found, query))

    def _op_pulls_get(self, params: dict[str, str], _q: Any, _b: Any) -> Reply:
        template = self.api.example(self._operation("GET", "/repos/o/r/pulls/1"), 200)
        for _label, _sha, item in self._pull_items(template):
            if item["number"] == int(params["pull_number"]):
                return Reply(200, item)
        return Reply(404, error_body(404, "Not Found"))

    def _op_repos_list_pull_requests_associated_with_commit(
        self, params: dict[str, str], query: Any, _b: Any
    ) -> Reply:
        template = self.api.example(self._operation("GET", "/repos/o/r/commits/a/pulls"), 200)[0]
        found = [
            item for _l, sha, item in self._pull_items(template) if sha == params["commit_sha"]
        ]
        return Reply(200, _page(found, query))

    def _op_git_get_tree(self, params: dict[str, str], query: Any, _b: Any) -> Reply:
        paths = self.trees.get(params["tree_sha"])
        if paths is None:
            return Reply(404, error_body(404, "Not Found"))
        recursive = _one(query, "recursive") is not None
        shown = paths if recursive else [p for p in paths if "/" not in p]
        tree = [
            {
                "path": p,
                "mode": "100644",
                "type": "blob",
                "sha": "0" * 40,
                "size": self.blob_sizes.get(p, DEFAULT_BLOB_SIZE),
                "url": f"{self.base_url}/blob",
            }
            for p in shown
        ]
        return Reply(
            200,
            {
                "sha": params["tree_sha"],
                "url": f"{self.base_url}/tree",
                "tree": tree,
                "truncated": False,
            },
        )

    def _operation(self, method: str, path: str) -> Any:
        found, _ = self.api.match(method, path)
        assert found is not None
        return found.operation


def _example_repository_id() -> int:
    example = next(e for e in webhook_examples()["workflow_run"] if e.get("action") == "completed")
    return int(example["repository"]["id"])


def _one(query: dict[str, list[str]], name: str, default: str | None = None) -> str | None:
    values = query.get(name)
    return values[0] if values else default


def _page(items: list[Json], query: dict[str, list[str]]) -> list[Json]:
    per_page = int(_one(query, "per_page", "30") or 30)
    page = int(_one(query, "page", "1") or 1)
    return items[(page - 1) * per_page : page * per_page]


def _platform_limits(operation_id: str, body: Json) -> list[str]:
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


def _handler_for(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
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
            self._send(fake.handle(self.command, self.path, headers, body))

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
