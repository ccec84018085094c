"""Each control proven on the real container: by inspect, and by a probe inside it.

Every probe also runs in a permissive container (root, capabilities, writable root, host
network namespace for the interface list) where it must detect the opposite, so a broken
probe cannot pass.
"""

from __future__ import annotations

import dataclasses
import json
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docker
import pytest

from tests.integration.helpers import permissive
from tests.sandbox_helpers import make_repo, sandbox
from verify_pr.sandbox.engine import EngineSettings
from verify_pr.sandbox.policy import LABEL_RUN, SandboxPolicy, seccomp_path
from verify_pr.sandbox.run import SandboxRequest, SandboxRun, make_policy, run_sandbox

SHIPPED_PROFILE = Path(seccomp_path()).read_text(encoding="utf-8")

PROBE = r"""
echo "uid=$(id -u) gid=$(id -g)"
grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status
echo "ifaces=$(ls /sys/class/net | tr '\n' ' ')"
for d in / /etc /repo /usr /work /tmp /cap; do
  if ( : > "$d/.probe" ) 2>/dev/null; then echo "writable=$d"; rm -f "$d/.probe"; fi
done
echo "env=$(env | cut -d= -f1 | sort | tr '\n' ' ')"
echo "binds=$(grep -c ' /repo ' /proc/self/mountinfo)"
ls -la /var/run/docker.sock /run/docker.sock 2>&1 | grep -c 'No such' | sed 's/^/nosock=/'
"""


def parse(out: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in out.splitlines():
        key, sep, value = line.replace(":\t", "=").partition("=")
        if sep:
            fields.setdefault(key, "")
            fields[key] = (fields[key] + " " + value).strip()
    return fields


@pytest.fixture
def client() -> Iterator[Any]:
    c = docker.from_env()
    yield c
    c.close()


def test_probe_inside_the_sandbox(minimal_image: str, tmp_path: Path, client: Any) -> None:
    run = sandbox(tmp_path, minimal_image, PROBE, "--timeout", "30")
    assert run.code == 0, run.stderr
    assert run.result["status"] == "COMPLETED" and run.result["exit_code"] == 0
    got = parse(run.output.decode())
    assert got["uid"] == "65534 gid=65534"
    assert got["CapEff"] == "0000000000000000"
    assert got["CapBnd"] == "0000000000000000"
    assert got["NoNewPrivs"] == "1"
    assert got["Seccomp"] == "2"
    assert got["ifaces"] == "lo"
    assert got["writable"].split() == ["/work", "/tmp", "/cap"]
    assert got["env"] == "CI HOME PATH PWD SHLVL"
    assert got["binds"] == "1"
    assert got["nosock"] == "2"

    control = parse(permissive(client, minimal_image, tmp_path, PROBE))
    assert control["uid"] == "0 gid=0"
    assert control["CapEff"] != "0000000000000000"
    assert control["NoNewPrivs"] == "0"
    assert control["ifaces"] != "lo"
    assert "/" in control["writable"].split() and "/repo" in control["writable"].split()
    assert "GH_TOKEN" in control["env"]


def _run_in_thread(
    request: SandboxRequest, settings: EngineSettings, run_id: str
) -> tuple[threading.Thread, list[SandboxRun]]:
    results: list[SandboxRun] = []
    thread = threading.Thread(
        target=lambda: results.append(run_sandbox(request, settings, run_id=run_id))
    )
    thread.start()
    return thread, results


def _find_container(client: Any, run_id: str, deadline_s: float = 20) -> Any:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        found = client.containers.list(filters={"label": f"{LABEL_RUN}={run_id}"})
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError("the sandbox container never appeared")


def test_inspect_shows_every_control_and_no_nonce(
    minimal_image: str, tmp_path: Path, client: Any
) -> None:
    nonce = "feedfacecafebeef" * 2
    settings = EngineSettings(new_nonce=lambda: nonce)
    run_id = "feed" + nonce[:12]
    repo = make_repo(tmp_path)
    # The check dumps every cmdline and environ it can read: the nonce must be in none.
    cmd = "cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | tr '\\0' ' '; sleep 2"
    request = SandboxRequest(repo, cmd, minimal_image, 30, 100000)
    thread, results = _run_in_thread(request, settings, run_id)
    container = _find_container(client, run_id)
    info = client.api.inspect_container(container.id)
    thread.join(60)
    hc, cfg = info["HostConfig"], info["Config"]
    assert hc["NetworkMode"] == "none"
    assert hc["ReadonlyRootfs"] is True
    assert hc["CapDrop"] == ["ALL"] and not hc["CapAdd"]
    # verify-pr's own seccomp profile, by its full text (the daemon keeps what it was sent).
    assert hc["SecurityOpt"] == ["no-new-privileges", f"seccomp={SHIPPED_PROFILE}"]
    assert hc["PidsLimit"] == 256
    assert hc["Memory"] == hc["MemorySwap"] == 512 * 1024 * 1024
    assert hc["NanoCpus"] == 10**9
    assert hc["Init"] is True
    assert hc["Privileged"] is False
    assert hc["LogConfig"]["Type"] == "none"
    assert set(hc["Tmpfs"]) == {"/work", "/cap", "/tmp"}
    assert "exec" in hc["Tmpfs"]["/work"].split(",")
    assert cfg["User"] == "65534:65534"
    assert cfg["Entrypoint"] == ["/bin/sh"]
    assert cfg["OpenStdin"] is True and cfg["StdinOnce"] is True and cfg["Tty"] is False
    assert sorted(e.split("=")[0] for e in cfg["Env"]) == ["CI", "HOME", "PATH"]
    mounts = info["Mounts"]
    assert len(mounts) == 1
    assert (mounts[0]["Destination"], mounts[0]["RW"]) == ("/repo", False)
    assert mounts[0]["Source"] == str(repo)
    assert nonce not in json.dumps(info)
    assert results and results[0].result.status == "COMPLETED"
    assert nonce not in results[0].output.decode("utf-8", "replace")
    assert b"verify-pr-wrapper" in results[0].output  # the probe did read cmdlines
    assert not client.containers.list(all=True, filters={"label": f"{LABEL_RUN}={run_id}"})


def unique_tag(name: str) -> str:
    """A tag no other run uses: runs sharing a daemon (parallel sessions, two CI jobs) each
    build and remove their own image, so one's cleanup cannot remove the other's."""
    return f"{name}:{secrets.token_hex(6)}"


def test_image_env_and_user_never_reach_the_check(
    minimal_image: str, tmp_path: Path, client: Any
) -> None:
    import io

    dockerfile = (
        f"FROM {minimal_image}\nENV PATH=/usr/bin:/bin LANG=C.UTF-8 APP_VERSION=1\n"
        'USER root\nENTRYPOINT ["/bin/false"]\nCMD ["nope"]\n'
    )
    tag = unique_tag("vpr-test-envimg")
    client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, pull=False)
    try:
        run = sandbox(tmp_path, tag, "id -u; env | sort", "--timeout", "30")
        assert run.result["status"] == "COMPLETED", run.result
        text = run.output.decode()
        assert text.splitlines()[0] == "65534"
        assert "LANG" not in text and "APP_VERSION" not in text
        assert "PATH=/usr/bin:/bin" in text
    finally:
        client.images.remove(tag, force=True)


@pytest.mark.parametrize(
    "extra",
    ['VOLUME ["/data"]', "ENV LD_PRELOAD=/lib/evil.so"],
)
def test_images_that_weaken_controls_are_refused(
    minimal_image: str, tmp_path: Path, client: Any, extra: str
) -> None:
    import io

    dockerfile = f"FROM {minimal_image}\n{extra}\n"
    tag = unique_tag("vpr-test-badimg")
    client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, pull=False)
    try:
        run = sandbox(tmp_path, tag, "true")
        assert run.code == 2, run.stderr
        assert "refused" in run.stderr
        assert not (tmp_path / "out" / "result.json").exists()
    finally:
        client.images.remove(tag, force=True)


@pytest.mark.parametrize(
    "profile",
    [
        "{not json",  # Engine 20.10 decodes it only at start, and refuses it there
        '{"defaultAction": "SCMP_ACT_NOPE"}',  # decoded; runc refuses it when applying it
    ],
)
def test_an_engine_that_refuses_the_profile_is_blocked(
    minimal_image: str, tmp_path: Path, profile: str
) -> None:
    """The run is BLOCKED, never started without the profile. Control: the same request
    with the shipped profile completes."""

    def refused(request: SandboxRequest, path_env: str, run_id: str) -> SandboxPolicy:
        return dataclasses.replace(make_policy(request, path_env, run_id), seccomp_profile=profile)

    request = SandboxRequest(make_repo(tmp_path), "echo ran", minimal_image, 30, 100000)
    got = run_sandbox(request, policy_for=refused)
    assert got.result.status == "BLOCKED" and got.output == b""
    assert "seccomp" in got.result.detail.lower(), got.result.detail
    control = run_sandbox(request)
    assert control.result.status == "COMPLETED" and b"ran" in control.output
