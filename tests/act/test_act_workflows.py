"""The docs' workflows, verbatim but for the image, under a real Actions runner (nektos/act).

Each test makes the PR's repository (a git repo with the workflow files of docs/examples in
.github/workflows, the image line swapped for a local test image), runs the verify workflow
for a ``pull_request`` event, then serves the uploaded folder from the loopback GitHub fake and
runs the publish workflow for the ``workflow_run`` event, ending at the check run the fake
received. See tests/act/harness.py for what is local and why nothing leaves the machine.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import docker
import pytest

from tests.act import harness
from tests.act.harness import ActResult, run_act
from tests.act.helpers import (
    EXAMPLE,
    PYTHON_IMAGE,
    docs_workflow,
    image_files,
    pull_request_event,
)
from tests.action.helpers import (
    FORK_REPO_ID,
    RUN_ID,
    workflow_run_event,
    write_json,
    zip_folder,
)
from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, git, init_repo
from tests.github_fake.server import TOKEN, FakeGitHub
from verify_pr.action.base_image import build_base_image

ARTIFACT = "verify-pr-result"
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


# verify-pr as the docs pin it (each pinned commit from ``git archive``): what a user who pastes
# the docs runs. The pinned trees hold the same shipped files as this checkout
# (tests/unit/test_self_pins.py), so serving them adds only the pins' own resolution: the
# docs' run and compare callers and the reusable workflows (whose inner pins are followed) run
# both ways; the other cases, which probe the same steps' behaviour, run from the checkout.
BOTH_WAYS = pytest.mark.parametrize("served", ["checkout", "pinned"], indirect=True)


@pytest.fixture(autouse=True)
def served(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How verify-pr's own references are served: this checkout unless a test asks for both."""
    way = str(getattr(request, "param", "checkout"))
    monkeypatch.setattr(harness, "SERVED", way)
    return way


def pr_repository(
    root: Path, workflow: str, base: dict[str, str], head: dict[str, str | None]
) -> tuple[Path, str, str]:
    """The PR's repo: ``main`` at base, branch ``fix`` at head (checked out), the workflow in
    .github/workflows of both."""
    repo = init_repo(root / "origin")
    files = {".github/workflows/verify-pr.yml": workflow, **image_files(workflow), **base}
    base_sha = commit(repo, files, "base")
    git(repo, "checkout", "--quiet", "-b", "fix")
    head_sha = commit(repo, dict(head), "the PR")
    checkout(repo, "fix")
    return repo, base_sha, head_sha


def verify(
    tmp_path: Path,
    payload: Callable[..., dict[str, Any]],
    workflow: str,
    base: dict[str, str],
    head: dict[str, str | None],
    env: dict[str, str] | None = None,
) -> tuple[ActResult, str]:
    repo, base_sha, head_sha = pr_repository(tmp_path, workflow, base, head)
    event = pull_request_event(tmp_path, payload, base_sha, head_sha)
    result = run_act(
        "pull_request",
        repo / ".github" / "workflows" / "verify-pr.yml",
        event,
        source=repo,
        work=tmp_path / "verify",
        env=env,
    )
    return result, head_sha


def publish(
    tmp_path: Path,
    payload: Callable[..., dict[str, Any]],
    fake: FakeGitHub,
    uploaded: Path,
    head_sha: str,
    changed: list[str],
    workflow: str = "verify-pr-publish.yml",
) -> dict[str, Any]:
    """The docs' publish workflow for the verify run's workflow_run event; the check run."""
    fake.add_artifact(RUN_ID, ARTIFACT, zip_folder(uploaded), head_sha=head_sha)
    fake.pulls.append((1347, "octo-org:fix-bug", head_sha, FORK_REPO_ID))
    fake.pull_files[1347] = changed
    fake.trees[head_sha] = changed
    event = workflow_run_event(payload("workflow_run", "completed"))
    event["workflow_run"]["head_sha"] = head_sha
    event_file = write_json(tmp_path / "workflow_run.json", event)
    repo = init_repo(tmp_path / "upstream")
    files = {".github/workflows/verify-pr-publish.yml": docs_workflow(workflow)}
    commit(repo, files, "publish workflow")
    result = run_act(
        "workflow_run",
        repo / ".github" / "workflows" / "verify-pr-publish.yml",
        event_file,
        source=repo,
        work=tmp_path / "publish",
        env={"GITHUB_API_URL": fake.base_url},
        secrets={"GITHUB_TOKEN": TOKEN},
    )
    assert result.job_succeeded, result.log
    assert "Install verify-pr" in result.log and "Publish the check run" in result.log
    (check,) = fake.check_runs.values()
    assert check["head_sha"] == head_sha
    return check


def _verdict(uploaded: Path) -> str:
    return str(json.loads((uploaded / "verdict.json").read_text())["verdict"])


@BOTH_WAYS
def test_run_mode_pass_to_a_success_check(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    require_docker(PYTHON_IMAGE)
    result, head = verify(
        tmp_path,
        webhook_payload,
        docs_workflow("verify-pr.yml"),
        {"calc.py": BUGGY, "test_calc.py": TESTS},
        {"calc.py": FIXED},
    )
    assert result.job_succeeded, result.log
    assert "verify-pr: PASS" in result.log
    uploaded = result.artifacts / ARTIFACT
    assert _verdict(uploaded) == "PASS"
    check = publish(tmp_path, webhook_payload, github_fake, uploaded, head, ["calc.py"])
    assert check["conclusion"] == "success", check["output"]
    assert check["output"]["title"] == "PASS"


def test_run_mode_fail_fails_the_job_and_the_check(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    require_docker(PYTHON_IMAGE)
    result, head = verify(
        tmp_path,
        webhook_payload,
        docs_workflow("verify-pr.yml"),
        {"calc.py": FIXED, "test_calc.py": TESTS},
        {"calc.py": BUGGY},
    )
    assert not result.job_succeeded, result.log
    assert "verdict FAIL" in result.log
    uploaded = result.artifacts / ARTIFACT
    assert _verdict(uploaded) == "FAIL"
    check = publish(tmp_path, webhook_payload, github_fake, uploaded, head, ["calc.py"])
    assert check["conclusion"] == "failure", check["output"]


@BOTH_WAYS
def test_compare_mode_verified_to_a_success_check(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    require_docker(PYTHON_IMAGE)
    result, head = verify(
        tmp_path,
        webhook_payload,
        docs_workflow("verify-pr-compare.yml"),
        {"calc.py": BUGGY, "test_calc.py": TESTS},
        {"calc.py": FIXED},
    )
    assert result.job_succeeded, result.log
    assert "verify-pr: VERIFIED" in result.log
    uploaded = result.artifacts / ARTIFACT
    verdict = json.loads((uploaded / "verify-pr-result.json").read_text())
    assert verdict["verdict"] == "VERIFIED"
    check = publish(tmp_path, webhook_payload, github_fake, uploaded, head, ["calc.py"])
    assert check["conclusion"] == "success", check["output"]
    assert check["output"]["title"] == "VERIFIED"


def test_compare_mode_docs_only_pr_has_nothing_to_prove_and_a_green_job(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    """Issue 23.4: a PR that fixes nothing and breaks nothing no longer turns the job red."""
    require_docker(PYTHON_IMAGE)
    result, head = verify(
        tmp_path,
        webhook_payload,
        docs_workflow("verify-pr-compare.yml"),
        {"calc.py": FIXED, "test_calc.py": TESTS},
        {"README.md": "docs only\n"},
    )
    assert result.job_succeeded, result.log
    assert "verify-pr: NOTHING_TO_PROVE" in result.log
    uploaded = result.artifacts / ARTIFACT
    verdict = json.loads((uploaded / "verify-pr-result.json").read_text())
    assert verdict["verdict"] == "NOTHING_TO_PROVE"
    check = publish(tmp_path, webhook_payload, github_fake, uploaded, head, ["README.md"])
    assert check["conclusion"] == "success", check["output"]
    assert check["output"]["title"] == (
        "NOTHING TO PROVE: no test goes from failing to passing; nothing that passed broke"
    )


@pytest.mark.parametrize(
    ("fail_on", "head", "verdict"),
    [
        # a maintainer who requires a proof: the docs-only PR turns the job red
        (
            "FAIL,NOT_PROVEN,BLOCKED,NOTHING_TO_PROVE",
            {"README.md": "docs only\n"},
            "NOTHING_TO_PROVE",
        ),
        # the default: a regression is NOT PROVEN, and the job is red
        (None, {"calc.py": BUGGY}, "NOT_PROVEN"),
    ],
)
def test_compare_mode_fail_on_turns_the_job_red(
    tmp_path: Path,
    webhook_payload: Callable[..., dict[str, Any]],
    fail_on: str | None,
    head: dict[str, str | None],
    verdict: str,
) -> None:
    require_docker(PYTHON_IMAGE)
    workflow = docs_workflow("verify-pr-compare.yml")
    if fail_on is not None:
        anchor = '          strict-harness: "true"\n'
        assert anchor in workflow
        workflow = workflow.replace(anchor, f'{anchor}          fail-on: "{fail_on}"\n')
    result, _ = verify(
        tmp_path, webhook_payload, workflow, {"calc.py": FIXED, "test_calc.py": TESTS}, head
    )
    assert not result.job_succeeded, result.log
    assert f"verdict {verdict} fails the job (input fail-on" in result.log
    uploaded = result.artifacts / ARTIFACT  # the result is uploaded all the same
    assert json.loads((uploaded / "verify-pr-result.json").read_text())["verdict"] == verdict


@pytest.mark.parametrize(
    ("how", "persist", "env", "said"),
    [
        ("token in the environment", False, {"GH_TOKEN": "ghp_" + "a" * 36}, "GH_TOKEN is set"),
        ("v4 .git/config", True, {}, ".git/config holds persisted credentials"),
        ("v6 credentials file", True, {"VPR_CHECKOUT_STYLE": "v6"}, "git-credentials-"),
    ],
)
def test_credentials_are_refused_before_any_run(
    tmp_path: Path,
    webhook_payload: Callable[..., dict[str, Any]],
    how: str,
    persist: bool,
    env: dict[str, str],
    said: str,
) -> None:
    require_docker(PYTHON_IMAGE)
    result, _ = verify(
        tmp_path,
        webhook_payload,
        docs_workflow("verify-pr.yml", persist_credentials=persist),
        {"calc.py": FIXED, "test_calc.py": TESTS},
        {"calc.py": FIXED + "\n"},
        env=env,
    )
    assert not result.job_succeeded, (how, result.log)
    assert "refusing to run with credentials" in result.log, how
    assert said in result.log, how
    assert "eC1hY2Nlc3MtdG9rZW46c3RhbmQtaW4=" not in result.log
    assert not (result.artifacts / ARTIFACT).exists(), "a refused run uploads nothing"


def test_a_tag_with_pull_image_digest_is_refused_with_its_reason(
    tmp_path: Path, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    require_docker(PYTHON_IMAGE)
    workflow = docs_workflow("verify-pr-registry-image.yml").replace(
        'pull-image-digest: "false"', 'pull-image-digest: "true"'
    )
    result, _ = verify(
        tmp_path,
        webhook_payload,
        workflow,
        {"calc.py": FIXED, "test_calc.py": TESTS},
        {"calc.py": FIXED + "\n"},
    )
    assert not result.job_succeeded, result.log
    assert "pull-image-digest needs a digest-pinned image" in result.log
    assert "Run Main Verify the pull request in the sandbox" not in result.log


@BOTH_WAYS
def test_reusable_workflows_called_with_uses(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    """The docs' callers of both reusable workflows: compare VERIFIED to a success check."""
    require_docker(PYTHON_IMAGE)
    result, head = verify(
        tmp_path,
        webhook_payload,
        docs_workflow("verify-pr-reusable.yml"),
        {"calc.py": BUGGY, "test_calc.py": TESTS},
        {"calc.py": FIXED},
    )
    assert result.job_succeeded, result.log
    assert "verify-pr: VERIFIED" in result.log
    uploaded = result.artifacts / ARTIFACT
    assert json.loads((uploaded / "verify-pr-result.json").read_text())["verdict"] == "VERIFIED"
    check = publish(
        tmp_path,
        webhook_payload,
        github_fake,
        uploaded,
        head,
        ["calc.py"],
        workflow="verify-pr-publish-reusable.yml",
    )
    assert check["conclusion"] == "success", check["output"]


BASE_DOCKERFILE = "FROM verify-pr-python:local\nCOPY ci/marker.txt /opt/marker.txt\n"
BUILT = "verify-pr-tests:base"  # the docs' image tag
MARKER_TEST = (
    "def test_the_image_is_bases():\n"
    "    with open('/opt/marker.txt') as f:\n"
    "        assert f.read() == 'base\\n'\n"
)


def _marker_in(image: str) -> str:
    """The marker file as built into ``image`` (read from a created, never started, container)."""
    client = docker.APIClient(**docker.utils.kwargs_from_env())
    container = client.create_container(image, command=["true"], network_disabled=True)
    try:
        stream, _ = client.get_archive(container["Id"], "/opt/marker.txt")
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
            member = tar.extractfile("marker.txt")
            assert member is not None
            return member.read().decode()
    finally:
        client.remove_container(container["Id"], force=True)


def test_the_image_is_built_from_base_never_head(
    tmp_path: Path, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    """build-dockerfile: the PR edits the Dockerfile's input; the image still holds base's."""
    require_docker(PYTHON_IMAGE)
    client = docker.APIClient(**docker.utils.kwargs_from_env())
    base_files = {
        "Dockerfile": BASE_DOCKERFILE,
        "ci/marker.txt": "base\n",
        "test_image.py": MARKER_TEST,
    }
    head_files: dict[str, str | None] = {
        "ci/marker.txt": "head\n",
        "Dockerfile": BASE_DOCKERFILE + "LABEL from=head\n",
    }
    try:
        result, head = verify(
            tmp_path,
            webhook_payload,
            docs_workflow("verify-pr.yml"),
            base_files,
            head_files,
        )
        assert result.job_succeeded, result.log
        assert "verify-pr: PASS" in result.log
        assert _marker_in(BUILT) == "base\n"
        assert "from" not in (client.inspect_image(BUILT)["Config"]["Labels"] or {})
        # positive control: the same build from head's commit holds head's marker
        build_base_image(
            tmp_path / "origin",
            head,
            "Dockerfile",
            "project-tests:head-control",
            tmp_path,
        )
        assert _marker_in("project-tests:head-control") == "head\n"
    finally:
        for tag in (BUILT, "project-tests:head-control"):
            with contextlib.suppress(docker.errors.ImageNotFound):
                client.remove_image(tag, force=True)


def test_every_docs_example_runs_under_act() -> None:
    """The docs' workflows are exactly the ones these tests run."""
    source = Path(__file__).read_text(encoding="utf-8")
    used = set(re.findall(r'docs_workflow\(\s*"([\w.-]+)"', source))
    used |= set(re.findall(r'workflow(?:: str)? ?= ?"([\w.-]+)"', source))
    assert used == set(EXAMPLE), set(EXAMPLE) ^ used
