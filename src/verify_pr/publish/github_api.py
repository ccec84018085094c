"""A small GitHub REST client for the publish job, on plain ``httpx`` with our own retries.

Covers only what publishing needs: check runs (create, update, find by name for a commit),
a workflow run's artifacts (list, download one by id), a PR's files and a comparison (does a
PR change the workflow file?), and a git tree (do annotation paths exist in the commit?).

Retries (``RetryPolicy``): a rate-limited answer (429, or 403 with ``retry-after`` or
``x-ratelimit-remaining: 0``) is waited out for any method, since GitHub did not act on it,
honouring ``retry-after`` / ``x-ratelimit-reset`` up to a cap; a GET is retried with
exponential backoff on 5xx and transport errors. A POST or PATCH is never retried blindly: a
timeout may hide a check run that was created, and PATCHed annotations are appended.

Re-runs: a check run is matched by name **and** ``external_id`` (the verify run it reports
on). A re-run of the publish job updates that check run and sends only the annotations it does
not have yet (``output.annotations_count``), so nothing is duplicated; a new verify attempt has
a new ``external_id`` and gets a fresh check run, which GitHub lists in place of the old one.

The transport is a seam (``httpx.BaseTransport``); tests point ``base_url`` at a loopback
server that checks each request against GitHub's OpenAPI description. Every ``httpx`` error
is wrapped in ``GitHubApiError`` here; none leaves this module.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError

from verify_pr import __version__
from verify_pr.errors import GitHubApiError, ReportError
from verify_pr.publish.render import CHECK_RUN_TEXT_MAX_BYTES, fit_markdown
from verify_pr.utf8 import cut_utf8

DEFAULT_BASE_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=10.0)
ANNOTATIONS_PER_REQUEST = 50
ANNOTATION_TITLE_MAX_CHARS = 255
ANNOTATION_MESSAGE_MAX_BYTES = 64 * 1024
PER_PAGE = 100
MAX_PAGES = 30
ERROR_MESSAGE_MAX_CHARS = 300

_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ModelT = TypeVar("_ModelT", bound=BaseModel)


class Conclusion(StrEnum):
    """The conclusions a check run can be given (``stale`` is GitHub's alone)."""

    ACTION_REQUIRED = "action_required"
    CANCELLED = "cancelled"
    FAILURE = "failure"
    NEUTRAL = "neutral"
    SUCCESS = "success"
    SKIPPED = "skipped"
    TIMED_OUT = "timed_out"


class CheckAnnotationLevel(StrEnum):
    """Checks API annotation levels (the workflow-command levels live in actions_io)."""

    NOTICE = "notice"
    WARNING = "warning"
    FAILURE = "failure"


@dataclass(frozen=True)
class Annotation:
    """One check-run annotation; texts are clipped to GitHub's limits when sent."""

    path: str
    start_line: int
    end_line: int
    level: CheckAnnotationLevel
    message: str
    title: str | None = None
    raw_details: str | None = None

    def __post_init__(self) -> None:
        if not self.path or self.start_line < 1 or self.end_line < self.start_line:
            raise ValueError(f"bad annotation location {self.path!r}:{self.start_line}")
        if not self.message:
            raise ValueError("an annotation needs a message")

    def payload(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "annotation_level": self.level.value,
            "message": cut_utf8(self.message, ANNOTATION_MESSAGE_MAX_BYTES),
        }
        if self.title:
            body["title"] = self.title[:ANNOTATION_TITLE_MAX_CHARS]
        if self.raw_details:
            body["raw_details"] = cut_utf8(self.raw_details, ANNOTATION_MESSAGE_MAX_BYTES)
        return body


@dataclass(frozen=True)
class CheckOutput:
    """Title, summary and text of a check run; summary and text are fitted to 65535 bytes.

    Render with ``verify_pr.publish.render`` first; the fit here is a safety net.
    """

    title: str
    summary: str
    text: str | None = None

    def payload(self, annotations: Sequence[Annotation] = ()) -> dict[str, Any]:
        body: dict[str, Any] = {
            "title": self.title,
            "summary": fit_markdown(self.summary, CHECK_RUN_TEXT_MAX_BYTES)[0],
        }
        if self.text is not None:
            body["text"] = fit_markdown(self.text, CHECK_RUN_TEXT_MAX_BYTES)[0]
        if annotations:
            body["annotations"] = [annotation.payload() for annotation in annotations]
        return body


class _ApiModel(BaseModel):
    """GitHub's answers: strict types, unknown fields ignored (GitHub adds fields freely)."""

    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")


class CheckRunOutput(_ApiModel):
    annotations_count: Annotated[int, Field(ge=0)]


class CheckRun(_ApiModel):
    id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    external_id: str | None
    output: CheckRunOutput


class _CheckRunPage(_ApiModel):
    total_count: int
    check_runs: list[CheckRun]


class ArtifactRun(_ApiModel):
    id: int | None = None
    head_sha: str | None = None


class Artifact(_ApiModel):
    id: int
    name: str
    size_in_bytes: Annotated[int, Field(ge=0)]
    expired: bool
    workflow_run: ArtifactRun | None = None


class _ArtifactPage(_ApiModel):
    total_count: int
    artifacts: list[Artifact]


class DiffEntry(_ApiModel):
    filename: str
    status: str
    previous_filename: str | None = None


class _DiffEntries(RootModel[list[DiffEntry]]):
    model_config = ConfigDict(strict=True, frozen=True)


class _Comparison(_ApiModel):
    files: list[DiffEntry] = []


class TreeEntry(_ApiModel):
    path: str
    type: str


class _Tree(_ApiModel):
    sha: str
    truncated: bool
    tree: list[TreeEntry]


@dataclass(frozen=True)
class Tree:
    """The blob paths of a commit's tree; ``truncated`` when GitHub did not list them all."""

    sha: str
    paths: frozenset[str]
    truncated: bool


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    max_rate_limit_wait_s: float = 120.0
    secondary_rate_limit_wait_s: float = 60.0

    def backoff(self, attempt: int) -> float:
        return float(min(self.backoff_base_s * 2 ** (attempt - 1), self.backoff_max_s))


def changed_paths(entries: Sequence[DiffEntry]) -> frozenset[str]:
    """Every path a diff touches, including the old name of a renamed file."""
    paths = {entry.filename for entry in entries}
    paths |= {entry.previous_filename for entry in entries if entry.previous_filename}
    return frozenset(paths)


def _check_sha(value: str) -> str:
    if not _SHA.fullmatch(value):
        raise GitHubApiError(f"not a commit sha: {value[:80]!r}")
    return value


def _hint(status: int) -> str:
    return {
        401: "the token is missing, expired or invalid",
        403: "the token lacks a permission (publish needs checks: write and actions: read)",
        404: "not found, or the token cannot see it",
        410: "the artifact has expired",
        422: "GitHub refused the request; this is a verify-pr bug",
    }.get(status, "")


class GitHubClient:
    """The publish job's REST client for one repository; use as a context manager."""

    def __init__(
        self,
        *,
        token: str,
        repository: str,
        base_url: str = DEFAULT_BASE_URL,
        transport: httpx.BaseTransport | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        timeout: httpx.Timeout = DEFAULT_TIMEOUT,
    ) -> None:
        if not _REPOSITORY.fullmatch(repository):
            raise GitHubApiError(f"not an owner/name repository: {repository[:200]!r}")
        self._repo = f"/repos/{repository}"
        self._origin = httpx.URL(base_url)
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

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._api.close()
        self._storage.close()

    # -- check runs ----------------------------------------------------------------------

    def create_check_run(self, body: dict[str, Any]) -> CheckRun:
        response = self._request("POST", f"{self._repo}/check-runs", json=body, expect=(201,))
        return self._parse(CheckRun, response)

    def update_check_run(self, check_run_id: int, body: dict[str, Any]) -> CheckRun:
        path = f"{self._repo}/check-runs/{int(check_run_id)}"
        return self._parse(CheckRun, self._request("PATCH", path, json=body))

    def find_check_runs(self, head_sha: str, name: str) -> list[CheckRun]:
        """The latest check runs called ``name`` on a commit, newest first."""
        path = f"{self._repo}/commits/{_check_sha(head_sha)}/check-runs"
        params = {"check_name": name, "filter": "latest"}
        runs: list[CheckRun] = []
        for response in self._pages(path, params):
            page = self._parse(_CheckRunPage, response)
            runs += page.check_runs
            if len(runs) >= page.total_count or len(page.check_runs) < PER_PAGE:
                break
        return [run for run in runs if run.name == name]

    def publish_check_run(
        self,
        *,
        name: str,
        head_sha: str,
        external_id: str,
        conclusion: Conclusion,
        output: CheckOutput,
        annotations: Sequence[Annotation] = (),
        details_url: str | None = None,
    ) -> CheckRun:
        """Create or update the check run; annotations go 50 a request (create, then PATCH)."""
        existing = next(
            (r for r in self.find_check_runs(head_sha, name) if r.external_id == external_id),
            None,
        )
        pending = list(
            annotations[existing.output.annotations_count :] if existing else annotations
        )
        batches = [
            pending[i : i + ANNOTATIONS_PER_REQUEST]
            for i in range(0, len(pending), ANNOTATIONS_PER_REQUEST)
        ] or [[]]
        body: dict[str, Any] = {
            "name": name,
            "external_id": external_id,
            "status": "completed",
            "conclusion": conclusion.value,
            "output": output.payload(batches[0]),
        }
        if details_url:
            body["details_url"] = details_url
        if existing is None:
            run = self.create_check_run({"head_sha": _check_sha(head_sha), **body})
        else:
            run = self.update_check_run(existing.id, body)
        for batch in batches[1:]:
            run = self.update_check_run(run.id, {"output": output.payload(batch)})
        return run

    # -- artifacts -----------------------------------------------------------------------

    def list_run_artifacts(self, run_id: int, name: str | None = None) -> list[Artifact]:
        path = f"{self._repo}/actions/runs/{int(run_id)}/artifacts"
        params = {} if name is None else {"name": name}
        artifacts: list[Artifact] = []
        for response in self._pages(path, params):
            page = self._parse(_ArtifactPage, response)
            artifacts += page.artifacts
            if len(artifacts) >= page.total_count or len(page.artifacts) < PER_PAGE:
                break
        return artifacts

    def run_artifact(self, run_id: int, name: str) -> Artifact:
        """The one unexpired artifact called ``name`` of a run; refuses none or several."""
        found = [a for a in self.list_run_artifacts(run_id, name) if a.name == name]
        if len(found) != 1 or found[0].expired:
            state = "expired" if found and found[0].expired else f"{len(found)} found"
            raise GitHubApiError(f"artifact {name!r} of run {run_id}: {state}, need exactly one")
        return found[0]

    def download_artifact(self, artifact_id: int, *, max_bytes: int) -> bytes:
        """The artifact's zip, at most ``max_bytes``; the storage URL is fetched without token."""
        path = f"{self._repo}/actions/artifacts/{int(artifact_id)}/zip"
        response = self._request("GET", path, expect=(302,))
        location = httpx.URL(response.headers.get("location", ""))
        same_origin = (location.scheme, location.host, location.port) == (
            self._origin.scheme,
            self._origin.host,
            self._origin.port,
        )
        if location.scheme != "https" and not same_origin:
            raise GitHubApiError(
                f"artifact {artifact_id}: refusing storage URL scheme {location.scheme!r}"
            )
        return self._fetch_capped(location, max_bytes)

    # -- commits, PRs, trees -------------------------------------------------------------

    def pull_request_files(self, number: int) -> list[DiffEntry]:
        """Files a PR changes (GitHub lists at most 3000)."""
        entries: list[DiffEntry] = []
        for response in self._pages(f"{self._repo}/pulls/{int(number)}/files", {}):
            page = self._parse(_DiffEntries, response).root
            entries += page
            if len(page) < PER_PAGE:
                break
        return entries

    def compare_files(self, base: str, head: str) -> list[DiffEntry]:
        """Files changed between two commits (GitHub lists at most 300)."""
        path = f"{self._repo}/compare/{_check_sha(base)}...{_check_sha(head)}"
        return self._parse(_Comparison, self._request("GET", path)).files

    def tree(self, sha: str) -> Tree:
        """All blob paths of a commit's tree (recursive)."""
        path = f"{self._repo}/git/trees/{_check_sha(sha)}"
        tree = self._parse(_Tree, self._request("GET", path, params={"recursive": "1"}))
        paths = frozenset(e.path for e in tree.tree if e.type == "blob")
        return Tree(sha=tree.sha, paths=paths, truncated=tree.truncated)

    # -- plumbing ------------------------------------------------------------------------

    def _pages(self, path: str, params: dict[str, str]) -> Iterator[httpx.Response]:
        for page in range(1, MAX_PAGES + 1):
            query = {**params, "per_page": str(PER_PAGE), "page": str(page)}
            yield self._request("GET", path, params=query)

    def _request(
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

    def _fetch_capped(self, url: httpx.URL, max_bytes: int) -> bytes:
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
    def _parse(model: type[_ModelT], response: httpx.Response) -> _ModelT:
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
