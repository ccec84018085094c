"""The HTTP layer's bounds (issue 15, part 3): a total deadline per request, finite numbers from
headers, capped bodies, and error bodies that cannot raise.

The deadline tests use a real loopback socket server that trickles its answer a byte at a time,
each byte well inside the 30 s read timeout: only a total deadline ends them. The positive
control trickles a complete answer the same way and, given time, gets it.
"""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest

from tests.github_fake.server import FakeGitHub, Fault
from tests.unit.publish.helpers import SHA, Sleeps
from verify_pr.errors import GitHubApiError, ReportError
from verify_pr.publish import http
from verify_pr.publish.github_api import GitHubClient
from verify_pr.publish.http import RestHttp, finite_number

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]"
FOREVER_HEADERS = b"HTTP/1.1 200 OK\r\n" + b"X-Slow: a\r\n" * 10_000
FOREVER_BODY = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b" " * 100_000
SERVER_GIVES_UP_S = 30.0


class Trickle:
    """A loopback server that sends ``answer`` one byte every ``interval`` seconds."""

    def __init__(self, answer: bytes, interval: float) -> None:
        self.answer = answer
        self.interval = interval
        self.stop = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def _serve(self) -> None:
        self.listener.settimeout(SERVER_GIVES_UP_S)
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(SERVER_GIVES_UP_S)
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                request += chunk
            give_up = time.monotonic() + SERVER_GIVES_UP_S
            for byte in self.answer:
                if self.stop.wait(self.interval) or time.monotonic() > give_up:
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return  # the client hung up: what the deadline is for

    def __enter__(self) -> Trickle:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.listener.close()
        self.thread.join(timeout=5)


def rest(url: str, deadline_s: float) -> RestHttp:
    return RestHttp(token="t", base_url=url, deadline_s=deadline_s, sleep=lambda _: None)


@pytest.mark.parametrize("answer", [FOREVER_HEADERS, FOREVER_BODY], ids=["headers", "body"])
def test_a_trickled_answer_is_cut_off_by_the_total_deadline(answer: bytes) -> None:
    with Trickle(answer, interval=0.05) as server:
        client = rest(server.url, deadline_s=1.0)
        with pytest.raises(GitHubApiError, match="no complete answer within 1 s"):
            client.request("GET", "/repos/o/r/pulls")
        client.close()


def test_positive_control_a_trickled_complete_answer_arrives_in_time() -> None:
    with Trickle(ANSWER, interval=0.01) as server:
        client = rest(server.url, deadline_s=SERVER_GIVES_UP_S)
        assert client.request("GET", "/repos/o/r/pulls").json() == []
        client.close()


# -- numbers from headers ----------------------------------------------------------------


# the sleeps and client fixtures: tests/unit/publish/conftest.py


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e999", "soon", ""])
def test_an_unreadable_retry_after_is_refused_without_waiting(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps, value: str
) -> None:
    github_fake.fail_next("checks/list-for-ref", Fault(429, {"retry-after": value}))
    with pytest.raises(GitHubApiError, match="unreadable retry-after"):
        client.find_check_runs(SHA, "verify-pr")
    assert sleeps.waits == []


@pytest.mark.parametrize(("value", "waited"), [("-5", 0.0), ("0", 0.0), ("2.5", 2.5)])
def test_a_readable_retry_after_is_waited_and_never_negative(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps, value: str, waited: float
) -> None:
    github_fake.fail_next("checks/list-for-ref", Fault(429, {"retry-after": value}))
    assert client.find_check_runs(SHA, "verify-pr") == []
    assert sleeps.waits == [waited]


@pytest.mark.parametrize("value", ["1e300", "99999999999"])
def test_a_huge_wait_is_refused_without_waiting(
    client: GitHubClient, github_fake: FakeGitHub, sleeps: Sleeps, value: str
) -> None:
    github_fake.fail_next("checks/list-for-ref", Fault(429, {"retry-after": value}))
    with pytest.raises(GitHubApiError, match="rate limited for"):
        client.find_check_runs(SHA, "verify-pr")
    assert sleeps.waits == []


@pytest.mark.parametrize(
    ("reset", "outcome"),
    [("nan", "unreadable"), ("1e400", "unreadable"), ("1e18", "rate limited for"), ("-1", 1.0)],
)
def test_ratelimit_reset_is_finite_and_bounded(
    client: GitHubClient,
    github_fake: FakeGitHub,
    sleeps: Sleeps,
    reset: str,
    outcome: str | float,
) -> None:
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    github_fake.fail_next("checks/list-for-ref", Fault(403, headers))
    if isinstance(outcome, float):
        assert client.find_check_runs(SHA, "verify-pr") == []
        assert sleeps.waits == [outcome]
        return
    with pytest.raises(GitHubApiError, match=outcome):
        client.find_check_runs(SHA, "verify-pr")
    assert sleeps.waits == []


@pytest.mark.parametrize(
    ("text", "number"),
    [("3", 3.0), (" 4.5 ", 4.5), ("nan", None), ("inf", None), ("1e999", None), ("x", None)],
)
def test_finite_number(text: str, number: float | None) -> None:
    assert finite_number(text) == number


# -- bodies ------------------------------------------------------------------------------


def test_a_deeply_nested_error_body_does_not_raise(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    github_fake.fail_next("git/get-tree", Fault(404, raw=b'{"message":' + b"[" * 200_000))
    with pytest.raises(GitHubApiError, match="answered 404") as info:
        client.tree(SHA)
    assert info.value.__cause__ is None  # a plain refusal, not a wrapped RecursionError


def test_positive_control_a_plain_error_body_gives_its_message(
    client: GitHubClient, github_fake: FakeGitHub
) -> None:
    github_fake.fail_next("git/get-tree", Fault(404, message="No commit found"))
    with pytest.raises(GitHubApiError, match="answered 404: No commit found"):
        client.tree(SHA)


def test_an_answer_over_the_body_cap_is_refused(
    client: GitHubClient, github_fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    github_fake.trees[SHA] = [f"f{i}.py" for i in range(100)]
    assert len(client.tree(SHA).paths) == 100  # positive control: under the cap
    monkeypatch.setattr(http, "API_BODY_MAX_BYTES", 1000)
    with pytest.raises(GitHubApiError, match="over 1000 bytes"):
        client.tree(SHA)


@pytest.mark.parametrize("length", ["abc", "nan", "1e999", str(10**30)])
def test_a_storage_content_length_that_is_not_a_size_is_refused(length: str) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.host == "api.invalid":
            return httpx.Response(302, headers={"location": "https://storage.invalid/blob"})
        return httpx.Response(200, headers={"content-length": length}, content=b"PK")

    with (
        GitHubClient(
            token="t",
            repository="o/r",
            base_url="https://api.invalid",
            transport=httpx.MockTransport(answer),
        ) as gh,
        pytest.raises((GitHubApiError, ReportError), match="over"),
    ):
        gh.download_artifact(1, max_bytes=1000)
