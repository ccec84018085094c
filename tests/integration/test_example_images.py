"""examples/Dockerfile.python builds (offline, from the local test image as its base) and the
image it makes judges examples/sample-pytest end to end: its ENV lines are accepted, and the
verdict is the suite's (issue 23, item 2). The positive control: the same project in the same
image with a failing test is FAIL, so the PASS came from the suite."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors
import pytest

from tests.conftest import require_docker
from tests.integration.helpers import verify_pr

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BASE = "verify-pr-python:local"
TAG = f"vpr-test-example-python-{os.getpid()}:1"  # the daemon is shared: our own tag


@pytest.fixture(scope="module")
def example_image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_docker(BASE)
    context = tmp_path_factory.mktemp("example-context")
    shutil.copy(EXAMPLES / "Dockerfile.python", context / "Dockerfile")
    shutil.copy(EXAMPLES / "sample-pytest" / "requirements-test.txt", context)
    client = docker.from_env(timeout=300)
    try:
        client.images.build(
            path=str(context),
            tag=TAG,
            pull=False,
            rm=True,
            network_mode="none",
            buildargs={"BASE": BASE, "PIP_NO_INDEX": "1", "PIP_BREAK_SYSTEM_PACKAGES": "1"},
        )
        yield TAG
    finally:
        with contextlib.suppress(docker.errors.ImageNotFound):  # the build failed
            client.images.remove(TAG, force=True)
        client.close()


@pytest.mark.slow
def test_the_example_image_judges_the_sample_project(example_image: str, tmp_path: Path) -> None:
    config = docker.from_env().api.inspect_image(example_image)["Config"]
    names = {item.partition("=")[0] for item in config["Env"]}
    assert {"PIP_NO_CACHE_DIR", "PYTHONDONTWRITEBYTECODE"} <= names
    assert not names & {"PIP_NO_INDEX", "PIP_BREAK_SYSTEM_PACKAGES"}  # build args stay out
    run = verify_pr(EXAMPLES / "sample-pytest", example_image, tmp_path / "out")
    assert (run.code, run.verdict.get("verdict")) == (0, "PASS"), run.stderr
    assert "PIP_NO_CACHE_DIR" in run.verdict["sandbox"]["environment"]["scrubbed"]


@pytest.mark.slow
def test_control_a_failing_test_in_the_same_image_is_fail(
    example_image: str, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "sample-pytest", repo)
    (repo / "tests" / "test_broken.py").write_text("def test_broken():\n    assert 1 == 2\n")
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    run = verify_pr(repo, example_image, tmp_path / "out")
    assert (run.code, run.verdict.get("verdict")) == (1, "FAIL"), run.stderr
