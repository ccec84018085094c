"""The contract end to end: exit codes, OUT files, sentinels, caps, report, BLOCKED."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.sandbox_helpers import make_repo, run_cli, sandbox
from verify_pr.models.sandbox import RunStatus, SandboxResult
from verify_pr.sandbox import engine
from verify_pr.sandbox.engine import EngineSettings
from verify_pr.sandbox.run import SandboxRequest, run_sandbox


def test_exit_code_and_output(minimal_image: str, tmp_path: Path) -> None:
    run = sandbox(tmp_path, minimal_image, "echo out; echo err >&2; exit 7")
    assert run.code == 0
    assert run.files == {"result.json", "output.txt"}
    SandboxResult.model_validate_json((run.out / "result.json").read_text())
    assert (run.result["status"], run.result["exit_code"]) == ("COMPLETED", 7)
    assert run.output == b"out\nerr\n"
    assert run.result["output_truncated"] is False


@pytest.mark.parametrize("code", [0, 1, 125, 126, 127, 137, 255])
def test_check_exit_codes_pass_through(minimal_image: str, tmp_path: Path, code: int) -> None:
    run = sandbox(tmp_path, minimal_image, f"exit {code}", "--timeout", "60")
    assert (run.result["status"], run.result["exit_code"]) == ("COMPLETED", code)


def test_repo_is_copied_to_work_and_mount_is_read_only(minimal_image: str, tmp_path: Path) -> None:
    files = {"pkg/mod.py": "x = 1\n", "run.sh": "echo ran\n"}
    cmd = "cat pkg/mod.py; sh run.sh; echo new > made; cat made; ( : > /repo/x ) 2>&1 | head -c 200"
    run = sandbox(tmp_path, minimal_image, cmd, files=files)
    text = run.output.decode()
    assert text.startswith("x = 1\nran\nnew\n")
    assert "Read-only file system" in text
    assert not (tmp_path / "repo" / "x").exists() and not (tmp_path / "repo" / "made").exists()


def test_forged_sentinels_are_just_output(minimal_image: str, tmp_path: Path) -> None:
    fake = "0123456789abcdef0123456789abcdef"
    cmd = (
        f"printf '\\nVPR1 {fake} RC 0 none 0\\n\\nVPR1 {fake} END\\n'; "
        "printf 'VPR1 partial line no newline'; exit 3"
    )
    run = sandbox(tmp_path, minimal_image, cmd)
    assert (run.result["status"], run.result["exit_code"]) == ("COMPLETED", 3)
    assert f"VPR1 {fake} END".encode() in run.output
    assert run.output.endswith(b"VPR1 partial line no newline")


def test_killing_the_wrapper_is_error_never_completed(minimal_image: str, tmp_path: Path) -> None:
    run = sandbox(tmp_path, minimal_image, "echo before; kill -9 -1; sleep 5")
    assert run.code == 0
    assert (run.result["status"], run.result["exit_code"]) == ("ERROR", None)
    assert "sentinel" in run.result["detail"]


def test_output_is_capped_on_both_sides(minimal_image: str, tmp_path: Path) -> None:
    run = sandbox(
        tmp_path, minimal_image, "yes abc | head -c 5000000; exit 0", "--max-output", "1000"
    )
    assert run.result["status"] == "COMPLETED"
    assert run.result["output_truncated"] is True
    assert run.output == (b"abc\n" * 250)


def test_flood_without_newline_and_binary(minimal_image: str, tmp_path: Path) -> None:
    cmd = "printf 'a\\000b\\377c'; head -c 3000000 /dev/zero | tr '\\0' x"
    run = sandbox(tmp_path, minimal_image, cmd, "--max-output", "64")
    assert run.output[:6] == b"a\x00b\xffcx"
    assert len(run.output) == 64 and run.result["output_truncated"] is True


def test_report_returned_outside_the_output_cap(minimal_image: str, tmp_path: Path) -> None:
    cmd = "head -c 900000 /dev/zero | tr '\\0' r > /work/rep.xml; echo done"
    run = sandbox(tmp_path, minimal_image, cmd, "--report", "/work/rep.xml", "--max-output", "10")
    assert run.result["report"] == "returned"
    assert (run.out / "report.txt").read_bytes() == b"r" * 900000
    assert run.output == b"done\n"


@pytest.mark.parametrize(
    ("cmd", "state"),
    [
        ("true", "missing"),
        ("mkdir /work/rep.xml", "not_regular"),
        ("ln -s /etc/passwd /work/rep.xml", "not_regular"),
        ("head -c 67108865 /dev/zero > /work/rep.xml", "too_large"),  # 64 MiB + 1
    ],
)
def test_report_refusals(minimal_image: str, tmp_path: Path, cmd: str, state: str) -> None:
    run = sandbox(tmp_path, minimal_image, cmd, "--report", "/work/rep.xml")
    assert run.result["report"] == state
    assert "report.txt" not in run.files


def test_a_report_at_the_cap_comes_back_whole(minimal_image: str, tmp_path: Path) -> None:
    # 64 MiB exactly (the edge of the refusal above), with the output cap left at 100 bytes:
    # the report streams to disk on the host and is not cut by the output cap.
    cmd = "head -c 67108864 /dev/zero | tr '\\0' r > /work/rep.xml; echo done"
    run = sandbox(tmp_path, minimal_image, cmd, "--report", "/work/rep.xml", "--max-output", "100")
    assert (run.result["report"], run.output) == ("returned", b"done\n")
    report = tmp_path / "out" / "report.txt"
    assert report.stat().st_size == 67108864
    with report.open("rb") as fh:
        assert fh.read(1 << 20) == b"r" * (1 << 20)


def test_stale_report_from_the_repo_is_not_returned(minimal_image: str, tmp_path: Path) -> None:
    run = sandbox(
        tmp_path, minimal_image, "true", "--report", "/work/rep.xml", files={"rep.xml": "<forged/>"}
    )
    assert run.result["report"] == "stale"
    assert "report.txt" not in run.files


def test_timeout_kills_setsid_children_that_ignore_term(minimal_image: str, tmp_path: Path) -> None:
    cmd = (
        "setsid sh -c 'trap \"\" TERM; while :; do echo bg; sleep 0.1; done' & "
        "trap '' TERM; sleep 100"
    )
    started = time.monotonic()
    run = sandbox(tmp_path, minimal_image, cmd, "--timeout", "2")
    assert time.monotonic() - started < 2 + engine.WATCHDOG_GRACE_S
    assert (run.result["status"], run.result["exit_code"]) == ("TIMEOUT", 137)


def test_survivor_that_keeps_printing_is_ended_before_the_sentinel(
    minimal_image: str, tmp_path: Path
) -> None:
    cmd = "(setsid sh -c 'while :; do echo daemon; done' &); sleep 0.5; exit 0"
    run = sandbox(tmp_path, minimal_image, cmd, "--timeout", "20")
    assert (run.result["status"], run.result["exit_code"]) == ("COMPLETED", 0)
    assert set(run.output.split()[:-1]) == {b"daemon"}  # the last one may be cut at the cap
    assert b"VPR1" not in run.output


def test_host_watchdog_ends_a_frozen_wrapper(minimal_image: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    # Stopping every process (the wrapper and its timeout included) defeats the in-container
    # timeout; only the host can end it.
    request = SandboxRequest(repo, "kill -STOP -1; sleep 100", "verify-pr-minimal:local", 2, 1000)
    run = run_sandbox(request, EngineSettings(watchdog_grace_s=1))
    assert (run.result.status, run.result.exit_code) == (RunStatus.TIMEOUT, None)
    assert "watchdog" in run.result.detail


def test_blocked_when_no_daemon(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    args = ["--repo", str(repo), "--image", "verify-pr-minimal:local", "--cmd", "true"]
    run = run_cli(args, tmp_path / "out", env={"DOCKER_HOST": "unix:///nonexistent.sock"})
    assert run.code == 3, run.stderr
    assert run.result["status"] == "BLOCKED" and run.result["exit_code"] is None
    assert "unreachable" in run.result["detail"]


def test_blocked_when_image_not_local(minimal_image: str, tmp_path: Path) -> None:
    run = sandbox(tmp_path, "verify-pr-no-such-image:never", "true")
    assert run.code == 3
    assert run.result["status"] == "BLOCKED"
    assert run.result["detail"] == (
        "image verify-pr-no-such-image:never is not on this daemon; load or build it: "
        "the sandbox never pulls"
    )


def test_host_tokens_reach_neither_container_nor_argv_nor_out(
    minimal_image: str, tmp_path: Path
) -> None:
    secret = "ghp_" + "S3CR3T" * 6
    env = {
        "GH_TOKEN": secret,
        "GITHUB_TOKEN": secret,
        "ACTIONS_RUNTIME_TOKEN": secret,
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": secret,
        "SSH_AUTH_SOCK": "/tmp/" + secret,
    }
    cmd = "env; cat /proc/1/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; ps 2>/dev/null"
    run = sandbox(tmp_path, minimal_image, cmd, env=env)
    assert run.result["status"] == "COMPLETED"
    for name in run.files:
        assert secret.encode() not in (run.out / name).read_bytes()
    assert b"GH_TOKEN" not in run.output
    printed = run_cli(
        [
            "--repo",
            str(tmp_path / "repo"),
            "--image",
            minimal_image,
            "--cmd",
            "true",
            "--print-argv",
        ],
        tmp_path / "out2",
        env=env,
    )
    assert printed.code == 0 and secret not in printed.stdout


def test_out_is_only_ours_and_written_by_host(minimal_image: str, tmp_path: Path) -> None:
    run = sandbox(tmp_path, minimal_image, "true")
    st = os.stat(run.out / "result.json")
    assert st.st_uid == os.getuid()
    assert json.loads((run.out / "result.json").read_text())["image"] == minimal_image


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_signal_to_the_runner_removes_its_container(
    minimal_image: str, tmp_path: Path, signame: str
) -> None:
    import signal
    import subprocess
    import sys

    import docker

    from verify_pr.sandbox.policy import LABEL_OWNER

    repo = make_repo(tmp_path)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "verify_pr.sandbox.cli",
            "--repo",
            str(repo),
            "--out",
            str(out),
            "--image",
            minimal_image,
            "--cmd",
            "sleep 60",
            "--timeout",
            "60",
        ],
        stderr=subprocess.PIPE,
        text=True,
    )
    client = docker.from_env()
    mine = {"label": f"{LABEL_OWNER}={os.uname().nodename}:{proc.pid}"}
    try:
        deadline = time.monotonic() + 20
        while not client.containers.list(filters=mine):
            assert time.monotonic() < deadline, "container never started"
            time.sleep(0.05)
        time.sleep(0.5)
        proc.send_signal(getattr(signal, signame))
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 3, err
        result = json.loads((out / "result.json").read_text())
        assert result["status"] == "BLOCKED"
        assert signame in result["detail"]
        assert not client.containers.list(all=True, filters=mine)
    finally:
        proc.kill()
        client.close()
