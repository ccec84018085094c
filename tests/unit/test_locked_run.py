"""The bare locked ``docker run`` (tests/images/buildlib/dockerio.py's ``locked_run_argv``) is
written once: the image smoke checks, the corpus tests' direct runner runs and the benchmarks'
bare baseline all build their argv through it, each with every lock and its own mounts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bench import sandbox_bench

from tests.images.buildlib import dockerio
from tests.images.buildlib.common import RECIPES
from tests.integration import helpers

LOCKS = [
    "--rm",
    "--network",
    "none",
    "--user",
    "65534:65534",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
]


def _smoke_argvs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every argv the python image's smoke check runs, its config inspect left out."""
    seen: list[list[str]] = []

    def fake_run(cmd: list[str]) -> str:
        seen.append(list(cmd))
        if cmd[:3] == ["docker", "image", "inspect"]:
            return json.dumps({"Env": [f"PATH={RECIPES['python'].path}"]})
        return "ok\n"

    monkeypatch.setattr(dockerio, "run", fake_run)
    dockerio.check_image(RECIPES["python"], "sha256:" + "0" * 64)
    return [cmd for cmd in seen if cmd[:2] == ["docker", "run"]]


def _helper_argv(monkeypatch: pytest.MonkeyPatch, tree: Path) -> list[str]:
    seen: list[list[str]] = []

    def fake_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        seen.append(cmd)
        assert kwargs == {"capture_output": True, "text": True, "timeout": 300, "check": False}
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(helpers.subprocess, "run", fake_run)
    helpers.locked_run(tree, "img", "pytest")
    (argv,) = seen
    return argv


def test_the_argv_carries_every_lock_then_mounts_options_image_command() -> None:
    argv = dockerio.locked_run_argv(
        "img", "sh", "-c", "true", tmpfs=("/tmp", "/work:exec"), options=("-e", "A=1")
    )
    assert argv == [
        "docker",
        "run",
        *LOCKS,
        "--read-only",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        "/work:exec",
        "-e",
        "A=1",
        "img",
        "sh",
        "-c",
        "true",
    ]
    assert "--read-only" not in dockerio.locked_run_argv("img", "true", read_only=False)


def test_the_smoke_checks_run_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    work = ["--tmpfs", "/tmp", "--tmpfs", "/work:exec,uid=65534,gid=65534", "--workdir", "/work"]
    img = "sha256:" + "0" * 64
    common, version, check = _smoke_argvs(monkeypatch)
    assert common == [
        "docker",
        "run",
        *LOCKS,
        "--read-only",
        img,
        "/bin/sh",
        "-c",
        dockerio.COMMON_CHECK,
    ]
    # the brief's command, no read-only root and no tmpfs; it gained the capability locks
    assert version == ["docker", "run", *LOCKS, img, "python3", "-m", "pytest", "--version"]
    assert check == [
        "docker",
        "run",
        *LOCKS,
        "--read-only",
        *work,
        img,
        "/bin/sh",
        "-c",
        dockerio.PYTHON_CHECK,
    ]


def test_the_corpus_direct_runs_are_locked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert _helper_argv(monkeypatch, tmp_path) == [
        "docker",
        "run",
        *LOCKS,
        "--read-only",
        "--tmpfs",
        "/work:exec,size=256m,uid=65534,gid=65534",
        "--tmpfs",
        "/tmp:size=64m",
        "-e",
        "HOME=/work",
        "-v",
        f"{tmp_path}:/repo:ro",
        "img",
        "sh",
        "-c",
        "cp -R /repo/. /work/ && cd /work && pytest",
    ]


def test_the_bench_bare_run_is_locked(tmp_path: Path) -> None:
    assert sandbox_bench.bare(tmp_path, "img", "true") == [
        "docker",
        "run",
        *LOCKS,
        "--read-only",
        "--tmpfs",
        sandbox_bench.TMPFS_WORK,
        "--tmpfs",
        "/tmp:rw,nosuid,nodev,size=64m",
        "-v",
        f"{tmp_path}:/repo:ro",
        "-w",
        "/work",
        "img",
        "sh",
        "-c",
        "true",
    ]
