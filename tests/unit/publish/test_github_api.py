"""The GitHub client's check runs against the loopback fake: creating and updating them, the
retry and rate limit policy, GitHub's size limits, and the fake's own refusal of invalid
requests. Artifacts, PR files and trees are in test_github_api_reads.py."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.github_fake.server import TOKEN, FakeGitHub, Fault, rate_limited
from tests.unit.publish.helpers import SHA, Sleeps
from verify_pr.errors import GitHubApiError
from verify_pr.publish.checks import (
    ANNOTATIONS_PER_REQUEST,
    Annotation,
    CheckAnnotationLevel,
    CheckOutput,
    Conclusion,
)
from verify_pr.publish.github_api import GitHubClient
from verify_pr.publish.http import RetryPolicy


def annotations(count: int) -> list[Annotation]:
    return [
        Annotation(f"src/f{i}.py", i + 1, i + 1, CheckAnnotationLevel.FAILURE, f"failed {i}", "t")
        for i in range(count)
    ]


def publish(client: GitHubClient, count: int = 0, external_id: str = "run-1") -> Any:
    return client.publish_check_run(
        name="verify-pr",
        head_sha=SHA,
        external_id=external_id,
        conclusion=Conclusion.FAILURE,
        output=CheckOutput(title="2 tests failed", summary="## Summary", text="details"),
        annotations=annotations(count),
    )


# -- check runs ---------------------------------------------------------------------------


def test_create_check_run_with_few_annotations(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    run = publish(client, 3)
    assert run.conclusion == "failure"
    assert [r.operation_id for r in github_fake.requests] == [
        "checks/list-for-ref",
        "checks/create",
    ]
    body = github_fake.calls("checks/create")[0].body
    assert body["head_sha"] == SHA
    assert len(body["output"]["annotations"]) == 3
    assert github_fake.check_runs[run.id]["output"]["annotations_count"] == 3


def test_annotations_go_fifty_a_request(client: GitHubClient, github_fake: FakeGitHub) -> None:
    run = publish(client, 120)
    sizes = [len(r.body["output"].get("annotations", [])) for r in github_fake.requests[1:]]
    assert sizes == [ANNOTATIONS_PER_REQUEST, ANNOTATIONS_PER_REQUEST, 20]
    assert [r.operation_id for r in github_fake.requests[1:]] == [
        "checks/create",
        "checks/update",
        "checks/update",
    ]
    assert len(github_fake.annotations[run.id]) == 120


def test_rerun_updates_the_same_check_run_without_duplicates(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    first = publish(client, 60)
    second = publish(client, 60)
    assert second.id == first.id
    assert len(github_fake.check_runs) == 1
    assert len(github_fake.calls("checks/create")) == 1
    assert len(github_fake.annotations[first.id]) == 60


def test_rerun_resumes_annotations_after_a_failed_patch(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    github_fake.fail_next("checks/update", Fault(502))
    with pytest.raises(GitHubApiError, match="502"):
        publish(client, 120)
    assert len(github_fake.calls("checks/update")) == 1  # a PATCH is never retried blindly
    run = publish(client, 120)
    assert len(github_fake.annotations[run.id]) == 120
    sent = [a["message"] for a in github_fake.annotations[run.id]]
    assert sent == [f"failed {i}" for i in range(120)]


def test_a_new_verify_attempt_gets_a_new_check_run(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    first = publish(client, 1, external_id="run-1-attempt-1")
    second = publish(client, 1, external_id="run-1-attempt-2")
    assert first.id != second.id


def test_post_is_never_retried_on_a_server_error(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps
) -> None:
    github_fake.fail_next("checks/create", Fault(500))
    with pytest.raises(GitHubApiError, match="answered 500"):
        publish(client)
    assert len(github_fake.calls("checks/create")) == 1
    assert sleeps.waits == []
    assert github_fake.check_runs == {}


def test_post_waits_out_a_secondary_rate_limit(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps
) -> None:
    github_fake.fail_next("checks/create", rate_limited(retry_after=7))
    publish(client)
    assert sleeps.waits == [7.0]
    assert len(github_fake.check_runs) == 1


def test_primary_rate_limit_honours_the_reset_header(
    github_fake: FakeGitHub, sleeps: Sleeps
) -> None:
    reset = int(time.time()) + 30
    fault = Fault(403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)})
    github_fake.fail_next("checks/list-for-ref", fault)
    with GitHubClient(
        token=TOKEN,
        repository="octo/repo",
        base_url=github_fake.base_url,
        sleep=sleeps,
        clock=lambda: reset - 30,
    ) as gh:
        assert gh.find_check_runs(SHA, "verify-pr") == []
    assert sleeps.waits == [31.0]


def test_a_rate_limit_too_long_to_wait_fails(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps
) -> None:
    github_fake.fail_next("checks/list-for-ref", rate_limited(retry_after=3600))
    with pytest.raises(GitHubApiError, match="rate limited for 3600 s"):
        client.find_check_runs(SHA, "verify-pr")
    assert sleeps.waits == []


def test_forbidden_without_rate_limit_headers_is_not_retried(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps
) -> None:
    github_fake.fail_next("checks/create", Fault(403, message="Resource not accessible"))
    with pytest.raises(GitHubApiError) as info:
        publish(client)
    assert "checks: write" in info.value.diagnostics()
    assert "Resource not accessible" in info.value.diagnostics()
    assert TOKEN not in info.value.diagnostics()
    assert sleeps.waits == []


def test_get_is_retried_with_backoff_on_5xx(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps
) -> None:
    github_fake.fail_next("checks/list-for-ref", Fault(502), times=2)
    assert client.find_check_runs(SHA, "verify-pr") == []
    assert sleeps.waits == [1.0, 2.0]


def test_get_gives_up_after_max_attempts(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps
) -> None:
    github_fake.fail_next("git/get-tree", Fault(503), times=10)
    with pytest.raises(GitHubApiError, match="answered 503"):
        client.tree(SHA)
    assert len(github_fake.calls("git/get-tree")) == RetryPolicy().max_attempts
    assert sleeps.waits == [1.0, 2.0, 4.0]


class FlakyTransport(httpx.BaseTransport):
    """A fake transport: fails the first ``failures`` requests, then answers ``[]``."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.methods: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.methods.append(request.method)
        if self.failures:
            self.failures -= 1
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json=[], request=request)


def flaky_client(transport: FlakyTransport, sleeps: Sleeps) -> GitHubClient:
    return GitHubClient(
        token="t",
        repository="o/r",
        base_url="https://api.invalid",
        transport=transport,
        sleep=sleeps,
    )


def test_transport_errors_on_get_are_retried(sleeps: Sleeps) -> None:
    transport = FlakyTransport(failures=2)
    with flaky_client(transport, sleeps) as gh:
        assert gh.pull_request_files(1) == []
    assert transport.methods == ["GET"] * 3
    assert sleeps.waits == [1.0, 2.0]


def test_transport_errors_on_post_are_wrapped_not_retried(sleeps: Sleeps) -> None:
    transport = FlakyTransport(failures=1)
    with flaky_client(transport, sleeps) as gh, pytest.raises(GitHubApiError) as info:
        gh.create_check_run({"name": "x", "head_sha": SHA})
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    assert transport.methods == ["POST"]


def test_long_output_is_fitted_to_the_byte_limit(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    client.publish_check_run(
        name="verify-pr",
        head_sha=SHA,
        external_id="x",
        conclusion=Conclusion.SUCCESS,
        output=CheckOutput(title="t", summary="é" * 40000, text="€" * 30000),
    )
    output = github_fake.calls("checks/create")[0].body["output"]
    assert len(output["summary"].encode()) <= 65535
    assert len(output["text"].encode()) <= 65535
    assert output["summary"].endswith("truncated to fit GitHub's size limit.*\n")


# -- the fake catches invalid requests ----------------------------------------------------


def test_an_invalid_body_is_refused_and_recorded(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    with pytest.raises(GitHubApiError, match="422"):
        client.create_check_run({"name": "x", "head_sha": SHA, "conclusion": "passed"})
    violations = github_fake.take_violations()
    assert len(violations) == 1
    assert "body['conclusion']: 'passed' is not one of" in violations[0]


def test_an_unknown_field_is_refused(client: GitHubClient, github_fake: FakeGitHub) -> None:
    with pytest.raises(GitHubApiError, match="422"):
        client.create_check_run(
            {
                "name": "x",
                "head_sha": SHA,
                "output": {"title": "t", "summary": "s", "sumary": "typo"},
            }
        )
    assert "'sumary' was unexpected" in github_fake.take_violations()[0]


def test_byte_limits_beyond_the_schema_are_enforced(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    # 30000 characters pass the schema's maxLength, but GitHub counts 90000 bytes.
    body = {"name": "x", "head_sha": SHA, "output": {"title": "t", "summary": "€" * 30000}}
    with pytest.raises(GitHubApiError, match="422"):
        client.create_check_run(body)
    assert github_fake.take_violations() == ["checks/create: output.summary is over 65535 bytes"]


def test_unknown_routes_and_bad_parameters_are_recorded(github_fake: FakeGitHub) -> None:
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    with httpx.Client(base_url=github_fake.base_url, headers=headers) as http:
        assert http.get("/repos/o/r/check-suns").status_code == 404
        assert http.delete("/repos/o/r/check-runs").status_code == 405
        bad = http.get(f"/repos/o/r/commits/{SHA}/check-runs", params={"per_page": "many"})
        assert bad.status_code == 422
        assert (
            http.get(
                "/repos/o/r/actions/runs/1/artifacts", headers={"Authorization": ""}
            ).status_code
            == 422
        )
    violations = github_fake.take_violations()
    assert len(violations) == 4
    assert "no such route" in violations[0]
    assert "method not allowed" in violations[1]
    assert "'per_page'='many' is not a integer" in violations[2]
    assert "Authorization" in violations[3]


def test_publish_for_a_real_workflow_run_payload(
    client: GitHubClient, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    event = webhook_payload("workflow_run", "completed")
    head_sha = event["workflow_run"]["head_sha"]
    run = client.publish_check_run(
        name="verify-pr",
        head_sha=head_sha,
        external_id=str(event["workflow_run"]["id"]),
        conclusion=Conclusion.NEUTRAL,
        output=CheckOutput(title="t", summary="s"),
    )
    assert github_fake.check_runs[run.id]["head_sha"] == head_sha
    assert webhook_payload("pull_request", "opened")["pull_request"]["head"]["sha"]


@pytest.mark.parametrize(("start", "end", "message"), [(0, 1, "m"), (3, 2, "m"), (1, 1, "")])
def test_annotation_is_validated(start: int, end: int, message: str) -> None:
    with pytest.raises(ValueError, match="annotation"):
        Annotation("a.py", start, end, CheckAnnotationLevel.FAILURE, message)


def test_annotation_texts_are_clipped() -> None:
    payload = Annotation(
        "a.py", 1, 1, CheckAnnotationLevel.FAILURE, "€" * 30000, "t" * 300, "x" * 70000
    ).payload()
    assert len(payload["message"].encode()) <= 64 * 1024
    assert len(payload["title"]) == 255
    assert len(payload["raw_details"]) == 64 * 1024
