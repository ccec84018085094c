"""Host tokens never reach the check, argv or OUT; images that would weaken the controls."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import HOST_TOKENS
from tests.hostile.helpers import attack, client, control, expect, loose, refused, results

SECRET = "ghp_" + "H0STILE" * 5
LOOK = (
    "env; cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n'; "
    # /cap holds the capture's FIFO: grep would read the check's own output from it for ever.
    # The pattern is split so the check's own command line does not carry the secret.
    f"grep -rl '{SECRET[:8]}''{SECRET[8:]}' /work /tmp /repo 2>/dev/null; ls -la /tmp"
)


@pytest.mark.parametrize("name", HOST_TOKENS)
def test_host_token_is_nowhere(minimal_image: str, tmp_path: Path, name: str) -> None:
    value = f"/tmp/{SECRET}" if name == "SSH_AUTH_SOCK" else SECRET
    run = attack(tmp_path, minimal_image, LOOK, "--timeout", "30", env={name: value})
    expect(run, "COMPLETED", 0)
    for f in run.files:
        assert SECRET.encode() not in (run.out / f).read_bytes(), f
    assert name.encode() not in run.output and SECRET not in run.stderr + run.stdout
    argv = subprocess.run(
        [
            sys.executable,
            "-m",
            "verify_pr.sandbox.cli",
            "--repo",
            str(tmp_path / "repo"),
            "--out",
            str(tmp_path / "o2"),
            "--image",
            minimal_image,
            "--cmd",
            "true",
            "--print-argv",
        ],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", name: value},
        check=True,
    )
    assert SECRET not in argv.stdout
    _code, logs = loose("env", environment={name: value})
    assert SECRET.encode() in logs
    control("a container given the variable does see it")


def _build(tag: str, extra: str, base: str) -> None:
    dockerfile = f"FROM {base}\n{extra}\n"
    client().images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, pull=False, rm=True)


@pytest.fixture(scope="module")
def images(minimal_image: str) -> Iterator[dict[str, str]]:
    made = {
        "env-secret": ("vpr-hostile-envsecret:1", f"ENV GITHUB_TOKEN={SECRET}"),
        "volume": ("vpr-hostile-volume:1", 'VOLUME ["/data"]'),
        "entrypoint": ("vpr-hostile-entry:1", 'ENTRYPOINT ["/bin/false"]\nCMD ["x"]'),
        "user-root": ("vpr-hostile-root:1", "USER root"),
    }
    for tag, extra in made.values():
        _build(tag, extra, minimal_image)
    try:
        yield {key: tag for key, (tag, _) in made.items()}
    finally:
        for tag, _ in made.values():
            client().images.remove(tag, force=True)


def test_image_env_secret_is_refused(images: dict[str, str], tmp_path: Path) -> None:
    run = attack(tmp_path, images["env-secret"], "env")
    refused(run, "image sets ENV GITHUB_TOKEN")
    _code, logs = loose("env", images["env-secret"])
    assert SECRET.encode() in logs
    control("the image's ENV reaches a container run from it")


def test_image_volume_is_refused(images: dict[str, str], tmp_path: Path) -> None:
    run = attack(tmp_path, images["volume"], "true")
    refused(run, "VOLUME")
    c = client().containers.create(images["volume"], ["true"], network_mode="none")
    try:
        c.reload()
        assert [m["Type"] for m in c.attrs["Mounts"]] == ["volume"]
    finally:
        c.remove(v=True, force=True)
    control("a container from the image gets an anonymous volume on host disk")


def test_image_entrypoint_is_overridden(images: dict[str, str], tmp_path: Path) -> None:
    run = attack(tmp_path, images["entrypoint"], "echo RESULT ran=yes")
    expect(run, "COMPLETED", 0)
    assert results(run.output)["ran"] == "yes"
    c = client().containers.create(images["entrypoint"], network_mode="none")
    try:
        c.start()
        assert c.wait(timeout=60)["StatusCode"] == 1
    finally:
        c.remove(force=True)
    control("the image's own ENTRYPOINT (/bin/false) exits 1")


def test_image_user_root_is_overridden(images: dict[str, str], tmp_path: Path) -> None:
    run = attack(tmp_path, images["user-root"], "echo RESULT uid=$(id -u)")
    expect(run, "COMPLETED", 0)
    assert results(run.output)["uid"] == "65534"
    c = client().containers.create(images["user-root"], ["id", "-u"], network_mode="none")
    try:
        c.start()
        c.wait(timeout=60)
        assert c.logs().strip() == b"0"
    finally:
        c.remove(force=True)
    control("the image's USER root applies without the override")
