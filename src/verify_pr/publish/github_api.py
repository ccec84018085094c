"""A small GitHub REST client for the publish job: only the endpoints publishing needs.

Check runs (create, update, find by name for a commit, publish with annotations 50 a
request), a workflow run's artifacts (list, download one by id), the PRs of a head commit (by
commit, by number, by head branch), a PR's files and a comparison (does a PR change the
workflow file?), and a git tree (do annotation paths exist in the commit, and how long are
they?). Retries, error wrapping and the token-free storage download live in ``http``.

Re-runs: a check run is matched by name **and** ``external_id`` (the verify run it reports
on). A re-run of the publish job updates that check run and sends only the annotations it does
not have yet (``output.annotations_count``), so nothing is duplicated; a new verify attempt has
a new ``external_id`` and gets a fresh check run, which GitHub lists in place of the old one.

The transport is a seam (``httpx.BaseTransport``); tests point ``base_url`` at a loopback
server that checks each request against GitHub's OpenAPI description.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, Field, RootModel

from verify_pr.errors import GitHubApiError
from verify_pr.publish.checks import ANNOTATIONS_PER_REQUEST, Annotation, CheckOutput, Conclusion
from verify_pr.publish.http import API_DEADLINE_S, DEFAULT_TIMEOUT, RestHttp, RetryPolicy

DEFAULT_BASE_URL = "https://api.github.com"
PER_PAGE = 100
MAX_PAGES = 30

_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ItemT = TypeVar("_ItemT")


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


class _PullRepo(_ApiModel):
    id: int


class _PullHead(_ApiModel):
    sha: str
    repo: _PullRepo | None


class _PullBase(_ApiModel):
    repo: _PullRepo


class _Pull(_ApiModel):
    number: Annotated[int, Field(ge=1)]
    state: str
    head: _PullHead
    base: _PullBase


class _Pulls(RootModel[list[_Pull]]):
    model_config = ConfigDict(strict=True, frozen=True)


@dataclass(frozen=True)
class PullRequest:
    """A PR as the API answers: number, state, head sha and the head and base repository ids."""

    number: int
    state: str
    head_sha: str
    head_repo_id: int | None
    base_repo_id: int

    @classmethod
    def _of(cls, pull: _Pull) -> PullRequest:
        head_repo = pull.head.repo.id if pull.head.repo else None
        return cls(pull.number, pull.state, pull.head.sha, head_repo, pull.base.repo.id)


class TreeEntry(_ApiModel):
    path: str
    type: str
    size: Annotated[int, Field(ge=0)] | None = None


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
    sizes: Mapping[str, int] = field(default_factory=dict)
    """Blob sizes in bytes, where GitHub gave them."""


def changed_paths(entries: Sequence[DiffEntry]) -> frozenset[str]:
    """Every path a diff touches, including the old name of a renamed file."""
    paths = {entry.filename for entry in entries}
    paths |= {entry.previous_filename for entry in entries if entry.previous_filename}
    return frozenset(paths)


def _check_sha(value: str) -> str:
    if not _SHA.fullmatch(value):
        raise GitHubApiError(f"not a commit sha: {value[:80]!r}")
    return value


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
        deadline_s: float = API_DEADLINE_S,
    ) -> None:
        if not _REPOSITORY.fullmatch(repository):
            raise GitHubApiError(f"not an owner/name repository: {repository[:200]!r}")
        self._repo = f"/repos/{repository}"
        self._http = RestHttp(
            token=token,
            base_url=base_url,
            transport=transport,
            retry=retry,
            sleep=sleep,
            clock=clock,
            timeout=timeout,
            deadline_s=deadline_s,
        )

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # -- check runs ----------------------------------------------------------------------

    def create_check_run(self, body: dict[str, Any]) -> CheckRun:
        path = f"{self._repo}/check-runs"
        return self._http.parse(
            CheckRun, self._http.request("POST", path, json=body, expect=(201,))
        )

    def update_check_run(self, check_run_id: int, body: dict[str, Any]) -> CheckRun:
        path = f"{self._repo}/check-runs/{int(check_run_id)}"
        return self._http.parse(CheckRun, self._http.request("PATCH", path, json=body))

    def find_check_runs(self, head_sha: str, name: str) -> list[CheckRun]:
        """The latest check runs called ``name`` on a commit, newest first."""
        path = f"{self._repo}/commits/{_check_sha(head_sha)}/check-runs"

        def page(response: httpx.Response) -> tuple[list[CheckRun], int]:
            parsed = self._http.parse(_CheckRunPage, response)
            return parsed.check_runs, parsed.total_count

        runs = self._paginate(path, {"check_name": name, "filter": "latest"}, page)
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
        try:
            listed = self.find_check_runs(head_sha, name)
        except GitHubApiError:
            listed = []  # an unreadable listing must not stop the check: post a fresh one
        existing = next((r for r in listed if r.external_id == external_id), None)
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

        def page(response: httpx.Response) -> tuple[list[Artifact], int]:
            parsed = self._http.parse(_ArtifactPage, response)
            return parsed.artifacts, parsed.total_count

        return self._paginate(path, {} if name is None else {"name": name}, page)

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
        response = self._http.request("GET", path, expect=(302,))
        try:
            location = httpx.URL(response.headers.get("location", ""))
        except httpx.InvalidURL as exc:
            raise GitHubApiError(f"artifact {artifact_id}: unreadable storage URL") from exc
        same_origin = (location.scheme, location.host, location.port) == (
            self._http.origin.scheme,
            self._http.origin.host,
            self._http.origin.port,
        )
        if location.scheme != "https" and not same_origin:
            raise GitHubApiError(
                f"artifact {artifact_id}: refusing storage URL scheme {location.scheme!r}"
            )
        return self._http.fetch_capped(location, max_bytes)

    # -- commits, PRs, trees -------------------------------------------------------------

    def pull_request_files(self, number: int) -> list[DiffEntry]:
        """Files a PR changes (GitHub lists at most 3000)."""
        path = f"{self._repo}/pulls/{int(number)}/files"

        def page(response: httpx.Response) -> tuple[list[DiffEntry], None]:
            return self._http.parse(_DiffEntries, response).root, None

        return self._paginate(path, {}, page)

    def open_pulls_for_head(self, owner: str, branch: str) -> list[PullRequest]:
        """Open PRs whose head is ``owner:branch`` (works for forks, unlike the event's list)."""
        path = f"{self._repo}/pulls"

        def page(response: httpx.Response) -> tuple[list[_Pull], None]:
            return self._http.parse(_Pulls, response).root, None

        pulls = self._paginate(path, {"state": "open", "head": f"{owner}:{branch}"}, page)
        return [PullRequest._of(p) for p in pulls]

    def pulls_for_commit(self, sha: str) -> list[PullRequest]:
        """PRs of this repository associated with a commit (open ones, for a PR's head)."""
        path = f"{self._repo}/commits/{_check_sha(sha)}/pulls"

        def page(response: httpx.Response) -> tuple[list[_Pull], None]:
            return self._http.parse(_Pulls, response).root, None

        return [PullRequest._of(p) for p in self._paginate(path, {}, page)]

    def pull(self, number: int) -> PullRequest:
        """One PR of this repository, by number."""
        path = f"{self._repo}/pulls/{int(number)}"
        return PullRequest._of(self._http.parse(_Pull, self._http.request("GET", path)))

    def tree(self, sha: str) -> Tree:
        """All blob paths of a commit's tree (recursive)."""
        path = f"{self._repo}/git/trees/{_check_sha(sha)}"
        tree = self._http.parse(_Tree, self._http.request("GET", path, params={"recursive": "1"}))
        blobs = [e for e in tree.tree if e.type == "blob"]
        sizes = {e.path: e.size for e in blobs if e.size is not None}
        paths = frozenset(e.path for e in blobs)
        return Tree(sha=tree.sha, paths=paths, truncated=tree.truncated, sizes=sizes)

    # -- plumbing ------------------------------------------------------------------------

    def _paginate(
        self,
        path: str,
        params: dict[str, str],
        page: Callable[[httpx.Response], tuple[list[_ItemT], int | None]],
    ) -> list[_ItemT]:
        """Every item over up to ``MAX_PAGES`` pages; stops at a short page or the total."""
        items: list[_ItemT] = []
        for number in range(1, MAX_PAGES + 1):
            query = {**params, "per_page": str(PER_PAGE), "page": str(number)}
            batch, total = page(self._http.request("GET", path, params=query))
            items += batch
            if len(batch) < PER_PAGE or (total is not None and len(items) >= total):
                break
        return items
