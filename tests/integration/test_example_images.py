"""examples/Dockerfile.python and examples/Dockerfile.node build (offline, from the local test
images as their base) and the images they make judge examples/sample-pytest and
examples/sample-jest end to end: their ENV lines are accepted, and the verdict is the suite's
(issue 23, item 2). The positive control: the same project in the same image with a failing
test is FAIL, so the PASS came from the suite.

The local node image has no npm (bookworm's nodejs package), where node:20-slim has one. So the
Node build gets a base made here: the local image plus npm 10 (the last line for Node 18) and an
npm cache filled on the host from the sample's own lockfile, with npm set offline by ENV; the
example Dockerfile itself is the one users copy, unchanged."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tarfile
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
NODE_BASE = "verify-pr-node:local"
NODE_TAG = f"vpr-test-example-node-{os.getpid()}:1"
NPM_BASE_TAG = f"vpr-test-node-npm-{os.getpid()}:1"
NPM = "npm@10.9.9"  # npm 11 needs Node 20; the local image's Node is bookworm's 18
NPM_BASE_DOCKERFILE = """FROM verify-pr-node:local
COPY npm /usr/local/lib/node_modules/npm
COPY npm-cache /npm-cache
RUN ln -s /usr/local/lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
ENV npm_config_cache=/npm-cache npm_config_offline=true
"""


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


def _host_npm(*args: str, cwd: Path) -> None:
    env = {**os.environ, "NPM_CONFIG_UPDATE_NOTIFIER": "false", "NPM_CONFIG_FUND": "false"}
    subprocess.run(["npm", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=300)


def _npm_base(client: docker.DockerClient, work: Path) -> None:
    """The local node image with npm and an offline cache of the sample's lockfile."""
    context = work / "npm-base"
    context.mkdir()
    _host_npm("pack", NPM, "--pack-destination", str(work), cwd=work)
    (packed,) = work.glob("npm-*.tgz")
    with tarfile.open(packed) as tar:
        tar.extractall(context, filter="data")
    (context / "package").rename(context / "npm")
    # Fill a cache from the sample's lockfile (integrity-checked by npm), then drop the install.
    fill = work / "fill"
    fill.mkdir()
    for name in ("package.json", "package-lock.json"):
        shutil.copy(EXAMPLES / "sample-jest" / name, fill)
    _host_npm("ci", "--ignore-scripts", "--cache", str(context / "npm-cache"), cwd=fill)
    (context / "Dockerfile").write_text(NPM_BASE_DOCKERFILE)
    client.images.build(
        path=str(context), tag=NPM_BASE_TAG, pull=False, rm=True, network_mode="none"
    )


@pytest.fixture(scope="module")
def node_example_image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_docker(NODE_BASE)
    work = tmp_path_factory.mktemp("node-example")
    context = work / "context"
    context.mkdir()
    shutil.copy(EXAMPLES / "Dockerfile.node", context / "Dockerfile")
    for name in ("package.json", "package-lock.json"):
        shutil.copy(EXAMPLES / "sample-jest" / name, context)
    client = docker.from_env(timeout=300)
    try:
        _npm_base(client, work)
        client.images.build(
            path=str(context),
            tag=NODE_TAG,
            pull=False,
            rm=True,
            network_mode="none",
            buildargs={"BASE": NPM_BASE_TAG},
        )
        yield NODE_TAG
    finally:
        for tag in (NODE_TAG, NPM_BASE_TAG):
            with contextlib.suppress(docker.errors.ImageNotFound):  # the build failed
                client.images.remove(tag, force=True)
        client.close()


def _writable_copy(source: Path, repo: Path) -> Path:
    shutil.copytree(source, repo)
    for path in [repo.parent, *repo.parent.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return repo


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
    repo = _writable_copy(EXAMPLES / "sample-pytest", tmp_path / "repo")
    (repo / "tests" / "test_broken.py").write_text("def test_broken():\n    assert 1 == 2\n")
    (repo / "tests" / "test_broken.py").chmod(0o644)
    run = verify_pr(repo, example_image, tmp_path / "out")
    assert (run.code, run.verdict.get("verdict")) == (1, "FAIL"), run.stderr


@pytest.mark.slow
def test_the_node_example_image_judges_the_sample_project(
    node_example_image: str, tmp_path: Path
) -> None:
    config = docker.from_env().api.inspect_image(node_example_image)["Config"]
    assert "NPM_CONFIG_UPDATE_NOTIFIER" in {item.partition("=")[0] for item in config["Env"]}
    repo = _writable_copy(EXAMPLES / "sample-jest", tmp_path / "repo")
    run = verify_pr(repo, node_example_image, tmp_path / "out")
    assert (run.code, run.verdict.get("verdict")) == (0, "PASS"), run.stderr
    assert run.verdict["runner"] == "jest"
    assert "NPM_CONFIG_UPDATE_NOTIFIER" in run.verdict["sandbox"]["environment"]["scrubbed"]


@pytest.mark.slow
def test_control_a_failing_jest_test_in_the_node_example_image_is_fail(
    node_example_image: str, tmp_path: Path
) -> None:
    repo = _writable_copy(EXAMPLES / "sample-jest", tmp_path / "repo")
    (repo / "__tests__" / "broken.test.js").write_text(
        'const { add } = require("../calc");\ntest("broken", () => { expect(add(1, 1)).toBe(3); });\n'
    )
    (repo / "__tests__" / "broken.test.js").chmod(0o644)
    run = verify_pr(repo, node_example_image, tmp_path / "out")
    assert (run.code, run.verdict.get("verdict")) == (1, "FAIL"), run.stderr
