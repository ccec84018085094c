"""The SDK kwargs and the printed docker argv come from one policy and agree."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

from verify_pr.sandbox.policy import TMPFS, SandboxPolicy, seccomp_path

BASE = SandboxPolicy(
    image="img:1",
    repo="/src/repo",
    command="pytest -q",
    timeout_s=30,
    max_output=1000,
    name="verify-pr-abc",
    report_path="/work/r.xml",
    labels={"io.verify-pr.run": "abc"},
)


def policy(report_path: str | None = "/work/r.xml") -> SandboxPolicy:
    return dataclasses.replace(BASE, report_path=report_path)


def _pairs(argv: list[str]) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}
    it = iter(argv)
    for arg in it:
        if arg.startswith("--security-opt="):
            seen.setdefault("--security-opt", []).append(arg.split("=", 1)[1])
        elif arg in ("--rm", "-i", "--read-only", "--init", "--no-healthcheck"):
            seen.setdefault(arg, []).append("")
        elif arg.startswith("--"):
            seen.setdefault(arg, []).append(next(it))
    return seen


def test_argv_matches_host_config() -> None:
    p = policy()
    hc = p.host_config()
    argv = p.docker_argv()
    flags = _pairs(argv[2 : argv.index("--entrypoint") + 2])
    assert flags["--network"] == [hc["network_mode"]] == ["none"]
    assert "--read-only" in flags and hc["read_only"] is True
    assert flags["--user"] == ["65534:65534"]
    assert flags["--cap-drop"] == hc["cap_drop"] == ["ALL"]
    assert flags["--security-opt"] == ["no-new-privileges", f"seccomp={seccomp_path()}"]
    assert hc["security_opt"] == ["no-new-privileges", f"seccomp={p.seccomp_profile}"]
    assert flags["--pids-limit"] == [str(hc["pids_limit"])] == ["256"]
    assert flags["--memory"] == flags["--memory-swap"] == [hc["mem_limit"]] == ["512m"]
    assert hc["memswap_limit"] == hc["mem_limit"]
    assert flags["--cpus"] == ["1"] and hc["nano_cpus"] == 10**9
    assert "--init" in flags and hc["init"] is True
    assert flags["--pull"] == ["never"]
    assert flags["--log-driver"] == [hc["log_config"]["Type"]] == ["none"]
    assert sorted(flags["--tmpfs"]) == sorted(f"{k}:{v}" for k, v in hc["tmpfs"].items())
    assert flags["--mount"] == ["type=bind,source=/src/repo,target=/repo,readonly"]
    assert hc["binds"] == {"/src/repo": {"bind": "/repo", "mode": "ro"}}
    assert flags["--env"] == ["PATH=" + p.path_env, "HOME=/work", "CI=1"]
    assert flags["--label"] == ["io.verify-pr.run=abc"]


def test_command_is_the_same_in_both() -> None:
    p = policy()
    kwargs = p.create_kwargs()
    argv = p.docker_argv()
    i = argv.index("--entrypoint")
    assert [argv[i + 1]] == kwargs["entrypoint"] == ["/bin/sh"]
    assert argv[i + 2] == kwargs["image"] == "img:1"
    assert argv[i + 3 :] == kwargs["command"]
    assert kwargs["command"][-5:] == ["pytest -q", "30", "1001", "/work/r.xml", "-"]


def test_no_report_is_a_dash() -> None:
    assert policy(report_path=None).create_kwargs()["command"][-2] == "-"


def test_coverage_path_is_the_wrappers_last_argument() -> None:
    p = dataclasses.replace(BASE, coverage_path="/work/c.json")
    assert p.create_kwargs()["command"][-2:] == ["/work/r.xml", "/work/c.json"]


def test_work_is_exec_and_owned_the_others_noexec() -> None:
    assert "exec" in TMPFS["/work"].split(",") and "uid=65534" in TMPFS["/work"]
    for target in ("/cap", "/tmp"):
        assert "noexec" in TMPFS[target].split(",")
    for opts in TMPFS.values():
        size = [o for o in opts.split(",") if o.startswith("size=")]
        assert size and size[0] != "size=0"


def test_no_secret_in_environment_or_argv() -> None:
    p = policy()
    assert set(p.environment) == {"PATH", "HOME", "CI"}
    assert all("TOKEN" not in a for a in p.docker_argv())


def _mib(text: str) -> int:
    assert text.endswith("m")
    return int(text[:-1])


def test_tmpfs_and_shm_fit_under_the_memory_limit() -> None:
    # A disk fill must meet ENOSPC before the cgroup's OOM killer takes the wrapper.
    p = policy()
    sizes = [
        _mib(o.split("=")[1]) for v in TMPFS.values() for o in v.split(",") if o.startswith("size=")
    ]
    assert sum(sizes) + _mib(p.shm_size) < _mib(p.memory)


def test_the_policy_runs_the_shipped_scripts() -> None:
    shipped = resources.files("verify_pr.sandbox")
    argv = policy().argv
    assert argv[:2] == ["/bin/sh", "-c"] and argv[3] == "verify-pr-boot"
    assert argv[2] == shipped.joinpath("boot.sh").read_text(encoding="utf-8")
    assert argv[4] == shipped.joinpath("wrapper.sh").read_text(encoding="utf-8")
    assert argv[5:] == ["pytest -q", "30", "1001", "/work/r.xml", "-"]


def test_the_printed_profile_path_holds_the_text_the_sdk_is_given() -> None:
    assert Path(seccomp_path()).read_text(encoding="utf-8") == BASE.seccomp_profile
    profile = json.loads(BASE.seccomp_profile)
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO" and profile["defaultErrnoRet"] == 1
    allowed = {name for rule in profile["syscalls"] for name in rule["names"]}
    assert not allowed & {"io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd"}


def test_the_shipped_profile_is_what_its_generator_writes() -> None:
    script = Path(__file__).resolve().parents[3] / "scripts" / "seccomp_profile.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_memory_bytes_is_the_daemons_unit() -> None:
    assert BASE.memory_bytes == 512 * 2**20
    assert dataclasses.replace(BASE, memory="2g").memory_bytes == 2 * 2**30
