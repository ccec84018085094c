"""--cpus and --memory reach the daemon: the running container, seen by `docker inspect`,
carries the asked limits, and result.json records them. Control: a run without the flags
carries the spec's 1 CPU and 512 MiB, so the inspect reads real values."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import docker
import docker.utils

from tests.sandbox_helpers import make_repo
from verify_pr.sandbox.policy import LABEL_OWNER

MINIMAL_IMAGE = "verify-pr-minimal:local"
GIB = 1024**3
# The check waits until the test has inspected it: the test creates /repo/go (the bind mount
# shows it live), so the container is running while it is inspected, with no timing guess.
WAIT_FOR_GO = "until [ -e /repo/go ]; do sleep 0.05; done"


def inspect_while_running(tmp_path: Path, *flags: str) -> tuple[dict[str, Any], dict[str, Any]]:
    repo = make_repo(tmp_path)
    out = tmp_path / "out"
    api = docker.APIClient(timeout=60, **docker.utils.kwargs_from_env())
    since = int(time.time()) - 1
    cmd = [sys.executable, "-m", "verify_pr.sandbox.cli", "--repo", str(repo), "--out", str(out)]
    cmd += ["--cmd", WAIT_FOR_GO, "--image", MINIMAL_IMAGE, "--timeout", "120", *flags]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        owner = f"{LABEL_OWNER}={os.uname().nodename}"
        events = api.events(
            since=since,
            decode=True,
            filters={"type": "container", "event": "start", "label": f"{owner}:{proc.pid}"},
        )
        started = next(iter(events))  # blocks until the daemon reports the start
        events.close()
        info = api.inspect_container(started["id"])
    finally:
        (repo / "go").write_text("")
        _, err = proc.communicate(timeout=180)
        api.close()
    assert proc.returncode == 0, err
    return info["HostConfig"], json.loads((out / "result.json").read_text())


def test_asked_limits_are_on_the_running_container(tmp_path: Path) -> None:
    host, result = inspect_while_running(tmp_path / "a", "--cpus", "2", "--memory", "1g")
    assert (host["NanoCpus"], host["Memory"], host["MemorySwap"]) == (2 * 10**9, GIB, GIB)
    assert (result["status"], result["cpus"], result["memory_bytes"]) == ("COMPLETED", 2.0, GIB)
    # Control: without the flags, the same inspect reads the spec's defaults.
    host, result = inspect_while_running(tmp_path / "b")
    assert (host["NanoCpus"], host["Memory"]) == (10**9, 512 * 1024**2)
    assert (result["cpus"], result["memory_bytes"]) == (1.0, 512 * 1024**2)


def test_verify_pr_run_takes_the_flags_into_its_verdict(tmp_path: Path) -> None:
    from tests.integration.helpers import verify_pr

    repo = make_repo(tmp_path, {"pytest.ini": "[pytest]\n", "test_a.py": "def test_a(): pass\n"})
    flags = ("--cpus", "2", "--memory", "1g", "--timeout", "120")
    run = verify_pr(repo, "verify-pr-python:local", tmp_path / "out", *flags)
    assert (run.code, run.verdict["verdict"]) == (0, "PASS"), run.stderr
    assert (run.verdict["sandbox"]["cpus"], run.verdict["sandbox"]["memory_bytes"]) == (2.0, GIB)
    refused = verify_pr(repo, "verify-pr-python:local", tmp_path / "out2", "--memory", "256m")
    assert refused.code == 2 and "--memory" in refused.stderr
