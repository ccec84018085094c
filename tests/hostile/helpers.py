"""Run one attack through the real CLI and check that nothing escaped; run its positive control.

``attack`` starts ``verify-pr-sandbox`` as a subprocess (as a user would), so it knows the
runner's pid and can find any container that runner left behind by its owner label. After the
run it checks the host side: OUT holds only our files, the repo and a host marker file are
byte-identical, no container of this runner is left, and (for big writes) the daemon's data
root did not grow. ``loose`` is the positive control: the same probe in a container with the
control under test absent (root, capabilities, writable root, no limits), never with a
network unless a test asks for the host namespace to read interface tables only.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker
import docker.errors
import docker.utils

from tests.conftest import MINIMAL_IMAGE
from tests.sandbox_helpers import CliRun, make_repo
from verify_pr.contract import SANDBOX_OUT_FILES as OUT_FILES
from verify_pr.sandbox.policy import LABEL_OWNER

PYTHON_IMAGE = os.environ.get("VPR_TEST_PYTHON_IMAGE", "verify-pr-python:local")
DISK_SLACK = 16 * 1024 * 1024  # the container's own writable layer and log, at most
RECORD: list[tuple[str, str]] = []  # (key, value) pairs for the table, reset per test
_client: Any = None


def client() -> Any:
    global _client
    if _client is None:
        _client = docker.from_env(timeout=120)
    return _client


def owner_label(pid: int) -> str:
    return f"{LABEL_OWNER}={os.uname().nodename}:{pid}"


def containers_of(pid: int) -> list[dict[str, Any]]:
    """The runner's containers, any state (one list call: no per-container inspect race)."""
    found = client().api.containers(all=True, filters={"label": owner_label(pid)})
    return list(found)


def tree_digest(root: Path) -> str:
    """Names, modes, link targets and bytes of everything under root (links not followed)."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            st = os.lstat(path)
            h.update(os.fsencode(path.relative_to(root)) + b"\0" + str(st.st_mode).encode())
            if path.is_symlink():
                h.update(os.fsencode(os.readlink(path)))
            elif path.is_file():
                h.update(path.read_bytes())
    return h.hexdigest()


@dataclass
class Attack(CliRun):
    pid: int = 0
    elapsed_s: float = 0.0


def attack(
    tmp_path: Path,
    image: str,
    cmd: str,
    *flags: str,
    files: dict[str, str] | None = None,
    repo: Path | None = None,
    env: dict[str, str] | None = None,
    disk: bool = False,
    wall_s: float = 180,
) -> Attack:
    """One run of the real CLI, then every 'nothing escaped' check."""
    marker = tmp_path / "host-marker"
    marker.write_text("host file the check must not touch\n")
    repo = repo or make_repo(tmp_path, files)
    before = tree_digest(repo)
    out = tmp_path / "out"
    started = time.monotonic()
    args = ["--repo", str(repo), "--image", image, "--cmd", cmd, *flags, "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "verify_pr.sandbox.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    watcher = DiskWatch(proc.pid) if disk else None
    try:
        stdout, stderr = proc.communicate(timeout=wall_s)
    finally:
        proc.kill()
        if watcher:
            watcher.stop()
    run = Attack(proc.returncode, stdout.decode(), stderr.decode(), out, proc.pid)
    run.elapsed_s = time.monotonic() - started
    assert not containers_of(proc.pid), "the runner left its container behind"
    assert marker.read_text() == "host file the check must not touch\n"
    assert tree_digest(repo) == before, "the repo changed on the host"
    if run.code in (0, 3):
        assert "result.json" in run.files and run.files <= OUT_FILES, run.files
        assert not [p for p in out.iterdir() if p.is_symlink() or not p.is_file()]
    else:
        assert not (out / "result.json").exists()
    if watcher:
        assert watcher.samples, "the disk watch never saw the container"
        assert watcher.peak < DISK_SLACK, f"the container wrote {watcher.peak} bytes to host disk"
    return run


class DiskWatch:
    """Polls, while the run lasts, how much host disk the runner's container holds: the
    files of its writable layer and of its directory in the data root (the log driver is
    none, and VOLUMEs are refused). The filesystem is shared with other users of the daemon,
    so its free space is too noisy to judge one run by."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self.samples = pid, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        api = docker.APIClient(timeout=60, **docker.utils.kwargs_from_env())
        dirs: list[str] = []
        try:
            while not self._stop.wait(0.1):
                if not dirs:
                    dirs = self._find(api)
                    continue
                self.peak = max(self.peak, sum(_bytes_under(d) for d in dirs))
                self.samples += 1
        finally:
            api.close()

    def _find(self, api: Any) -> list[str]:
        try:
            for c in api.containers(all=True, filters={"label": owner_label(self.pid)}):
                info = api.inspect_container(c["Id"])
                upper = (info.get("GraphDriver") or {}).get("Data", {}).get("UpperDir", "")
                home = os.path.dirname(info.get("HostnamePath") or "")
                return [d for d in (upper, home) if d]
        except docker.errors.APIError:
            pass
        return []

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)


def expect(
    run: CliRun,
    status: str | tuple[str, ...],
    exit_code: int | str | None = "any",
    detail: str | None = None,
    truncated: bool | None = False,
) -> dict[str, Any]:
    """Assert the host's classification and record it for the table."""
    assert run.code in (0, 3), run.stderr
    res = run.result
    wanted = (status,) if isinstance(status, str) else status
    assert res["status"] in wanted, res
    if exit_code != "any":
        assert res["exit_code"] == exit_code, res
    if detail is not None:
        assert detail in res["detail"], res
    if truncated is not None:
        assert res["output_truncated"] is truncated, res
    shown = res["exit_code"] if res["exit_code"] is not None else "none"
    RECORD.append(("outcome", f"{res['status']} exit {shown}"))
    return res


def refused(run: CliRun, why: str) -> None:
    assert run.code == 2, (run.code, run.stderr)
    assert why in run.stderr, run.stderr
    RECORD.append(("outcome", "refused (exit 2)"))


def control(what: str) -> None:
    """Record that the positive control detected the thing the sandbox blocks."""
    RECORD.append(("control", what))


def results(text: str | bytes) -> dict[str, str]:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    got: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("RESULT "):
            key, _, value = line[7:].partition("=")
            got[key] = value
    return got


@contextmanager
def loose_container(script: str, image: str = MINIMAL_IMAGE, **overrides: Any) -> Iterator[Any]:
    """A container with the controls absent: root, default caps, writable root, no limits.

    No network unless ``network_mode`` is overridden; removed (with its volumes) on exit."""
    kwargs: dict[str, Any] = {
        "user": "0:0",
        "network_mode": "none",
        "labels": {"io.verify-pr.test": "loose"},
        "entrypoint": ["/bin/sh", "-c"],
        "command": [script],
    }
    kwargs.update(overrides)
    container = client().containers.create(image, **kwargs)
    try:
        yield container
    finally:
        container.remove(force=True, v=True)


def loose(
    script: str, image: str = MINIMAL_IMAGE, wait_s: float = 120, **overrides: Any
) -> tuple[int, bytes]:
    """Run the probe loose and return (exit code, stdout+stderr)."""
    with loose_container(script, image, **overrides) as container:
        container.start()
        code = int(container.wait(timeout=wait_s)["StatusCode"])
        return code, bytes(container.logs())


def alive_after(script: str, seconds: float, image: str = MINIMAL_IMAGE, **overrides: Any) -> bool:
    """Positive control for a timeout: without one, is the probe still running later?"""
    with loose_container(script, image, **overrides) as container:
        container.start()
        time.sleep(seconds)
        container.reload()
        return bool(container.status == "running")


def result_json(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "result.json").read_text())
    return data


def layer_bytes(script: str) -> int:
    """Host disk a loose container's writable layer holds after running script."""
    with loose_container(script) as container:
        container.start()
        container.wait(timeout=120)
        found = client().api.containers(all=True, size=True, filters={"id": container.id})
        return int(found[0].get("SizeRw") or 0)


def _bytes_under(root: str) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                continue
    return total
