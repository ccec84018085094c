"""The GitHub client's reads against the loopback fake: the run's artifact and its download,
a PR's files, a commit's tree, and the refs and repository names it accepts."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable

import httpx
import pytest

from tests.github_fake.server import FakeGitHub
from tests.unit.publish.helpers import SHA
from verify_pr.errors import GitHubApiError, ReportError
from verify_pr.publish.artifact import read_artifact
from verify_pr.publish.github_api import DiffEntry, GitHubClient, changed_paths

# -- artifacts ----------------------------------------------------------------------------


def zip_of(**files: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_download_the_run_artifact_without_the_token(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    data = zip_of(**{"result.json": b'{"status": "COMPLETED"}'})
    github_fake.add_artifact(77, "other", b"x")
    artifact_id = github_fake.add_artifact(77, "verify-pr-result", data)
    artifact = client.run_artifact(77, "verify-pr-result")
    assert artifact.id == artifact_id
    assert artifact.size_in_bytes == len(data)
    downloaded = client.download_artifact(artifact.id, max_bytes=1024 * 1024)
    assert downloaded == data
    assert read_artifact(downloaded, allowed_names={"result.json"}) == {
        "result.json": b'{"status": "COMPLETED"}'
    }
    blob = [r for r in github_fake.requests if r.operation_id == "blob"]
    assert len(blob) == 1
    assert "authorization" not in blob[0].headers


def test_download_over_the_cap_is_refused(client: GitHubClient, github_fake: FakeGitHub) -> None:
    artifact_id = github_fake.add_artifact(1, "verify-pr-result", b"z" * 5000)
    with pytest.raises(ReportError, match="over 4096 bytes"):
        client.download_artifact(artifact_id, max_bytes=4096)


class Redirect(httpx.BaseTransport):
    """A fake transport: the artifact endpoint redirects to ``location``."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.urls: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.urls.append(str(request.url))
        return httpx.Response(302, headers={"location": self.location}, request=request)


@pytest.mark.parametrize("location", ["http://storage.invalid/blob", "", "file:///etc/passwd"])
def test_storage_url_must_be_https(location: str) -> None:
    transport = Redirect(location)
    with (
        GitHubClient(
            token="t", repository="o/r", base_url="https://api.invalid", transport=transport
        ) as gh,
        pytest.raises(GitHubApiError, match="scheme"),
    ):
        gh.download_artifact(1, max_bytes=10)
    assert transport.urls == ["https://api.invalid/repos/o/r/actions/artifacts/1/zip"]


def test_missing_artifact_is_an_error(client: GitHubClient, github_fake: FakeGitHub) -> None:
    github_fake.add_artifact(1, "something-else", b"")
    with pytest.raises(GitHubApiError, match="0 found"):
        client.run_artifact(1, "verify-pr-result")


def test_unknown_artifact_download_is_404(client: GitHubClient) -> None:
    with pytest.raises(GitHubApiError, match="404") as info:
        client.download_artifact(999, max_bytes=10)
    assert "cannot see it" in info.value.diagnostics()


# -- PR files, compare, tree --------------------------------------------------------------


def test_pull_request_files_are_paginated(client: GitHubClient, github_fake: FakeGitHub) -> None:
    names = [f"f{i}.py" for i in range(250)] + [".github/workflows/verify.yml"]
    github_fake.pull_files[5] = names
    entries = client.pull_request_files(5)
    assert [e.filename for e in entries] == names
    pages = [r.query["page"] for r in github_fake.calls("pulls/list-files")]
    assert pages == [["1"], ["2"], ["3"]]


def test_changed_paths_include_the_old_name_of_a_rename() -> None:
    entries = [
        DiffEntry(
            filename="ci.yml", status="renamed", previous_filename=".github/workflows/verify.yml"
        )
    ]
    assert changed_paths(entries) == {"ci.yml", ".github/workflows/verify.yml"}


def test_tree_paths(client: GitHubClient, github_fake: FakeGitHub) -> None:
    github_fake.trees[SHA] = ["README.md", "src/app.py", "tests/test_app.py"]
    tree = client.tree(SHA)
    assert tree.paths == {"README.md", "src/app.py", "tests/test_app.py"}
    assert tree.truncated is False
    assert github_fake.calls("git/get-tree")[0].query == {"recursive": ["1"]}


@pytest.mark.parametrize(
    "call",
    [
        lambda gh: gh.tree("../../../user"),
        lambda gh: gh.find_check_runs("main", "x"),
    ],
)
def test_refs_must_be_shas(
    client: GitHubClient, github_fake: FakeGitHub, call: Callable[[GitHubClient], object]
) -> None:
    with pytest.raises(GitHubApiError, match="not a commit sha"):
        call(client)
    assert github_fake.requests == []


def test_repository_must_be_owner_slash_name() -> None:
    with pytest.raises(GitHubApiError, match="owner/name"):
        GitHubClient(token="t", repository="octo/repo/../x")
