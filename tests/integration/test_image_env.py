"""Common Dockerfile ENV lines do not refuse the image (issue 23, item 2), and the check does not
see them: it runs under ``env -i`` with PATH, HOME=/work and CI=1, which result.json says, with
the names (never the values) of the image's ENV it did not get. Real images, built here from
the local test images with those lines; the positive controls: a plain container from the same
image sees every line, and an image with a variable that stays refused still exits 2.
"""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import docker
import pytest

from tests.conftest import MINIMAL_IMAGE, require_docker
from tests.integration.helpers import PROJECTS, verify_pr
from tests.sandbox_helpers import sandbox

SECRET = "s3cr3t-" + "index-token"
COMMON = {
    "PIP_NO_CACHE_DIR": "1",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PIP_INDEX_URL": f"https://user:{SECRET}@pypi.example/simple",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "DEBIAN_FRONTEND": "noninteractive",
    "TZ": "Europe/Paris",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "NODE_ENV": "production",
    "NPM_CONFIG_UPDATE_NOTIFIER": "false",
}
REFUSED = {
    # harmless to the wrapper, but the check would not get it: the tests would differ
    "pythonpath": ("PYTHONPATH=/opt/lib", "which the check would not get"),
    # read by the loader of every program the wrapper starts
    "ld-preload": ("LD_PRELOAD=/nonexistent.so", "could change what the sandbox wrapper does"),
}
TAG = f"vpr-test-image-env-{os.getpid()}"  # other workers share the daemon: our own tags


def _build(tag: str, base: str, env_lines: list[str]) -> None:
    dockerfile = f"FROM {base}\n" + "".join(f"ENV {line}\n" for line in env_lines)
    client = docker.from_env(timeout=120)
    try:
        client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, pull=False, rm=True)
    finally:
        client.close()


@pytest.fixture(scope="module")
def images() -> Iterator[dict[str, str]]:
    require_docker(MINIMAL_IMAGE)
    common = [f"{k}={v}" for k, v in COMMON.items()]
    made = {"common": (f"{TAG}-common:1", MINIMAL_IMAGE, common)}
    made |= {k: (f"{TAG}-{k}:1", MINIMAL_IMAGE, [line]) for k, (line, _) in REFUSED.items()}
    if (
        subprocess.run(
            ["docker", "image", "inspect", "verify-pr-python:local"],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    ):
        made["python"] = (f"{TAG}-python:1", "verify-pr-python:local", common)
    tags: dict[str, str] = {}
    try:
        for key, (tag, base, lines) in made.items():
            _build(tag, base, lines)
            tags[key] = tag
        yield tags
    finally:
        client = docker.from_env(timeout=120)
        for tag in tags.values():
            client.images.remove(tag, force=True)
        client.close()


def _environment(output: bytes) -> dict[str, str]:
    pairs = (line.partition("=") for line in output.decode().splitlines() if "=" in line)
    return {k: v for k, _, v in pairs}


def test_common_env_lines_are_accepted_and_the_check_does_not_see_them(
    images: dict[str, str], tmp_path: Path
) -> None:
    run = sandbox(tmp_path, images["common"], "env")
    assert run.code == 0, run.stderr
    seen = _environment(run.output)
    assert not set(COMMON) & set(seen), seen
    assert (seen["HOME"], seen["CI"]) == ("/work", "1")
    result = run.result
    env = result["environment"]
    assert env["passed"] == {"PATH": seen["PATH"], "HOME": "/work", "CI": "1"}
    assert set(COMMON) <= set(env["scrubbed"])
    for name in run.files:  # names only: a value may be a secret
        assert SECRET.encode() not in (run.out / name).read_bytes(), name
    # positive control: a plain container from the same image sees every line
    plain = subprocess.run(
        ["docker", "run", "--rm", "--network", "none", "--entrypoint", "env", images["common"]],
        capture_output=True,
        check=True,
    )
    assert set(COMMON) <= set(_environment(plain.stdout))


@pytest.mark.parametrize("key", sorted(REFUSED))
def test_a_variable_that_stays_refused_still_refuses(
    images: dict[str, str], tmp_path: Path, key: str
) -> None:
    run = sandbox(tmp_path, images[key], "true")
    assert run.code == 2, (run.code, run.stderr)
    line, why = REFUSED[key]
    assert f"image sets ENV {line.partition('=')[0]}" in run.stderr and why in run.stderr


@pytest.mark.slow
def test_a_python_image_with_common_env_lines_judges_the_suite(
    images: dict[str, str], tmp_path: Path
) -> None:
    if "python" not in images:
        require_docker("verify-pr-python:local")
    run = verify_pr(PROJECTS / "pytest" / "pass", images["python"], tmp_path / "out")
    assert (run.code, run.verdict.get("verdict")) == (0, "PASS"), run.stderr
    assert set(COMMON) <= set(run.verdict["sandbox"]["environment"]["scrubbed"])
