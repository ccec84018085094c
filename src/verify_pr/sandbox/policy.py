"""The controls, as one data object.

Both the Docker SDK call and the ``--print-argv`` docker command line are generated from the
same :class:`SandboxPolicy`, so the two cannot drift apart.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from verify_pr.contract import WORK_DIR

SANDBOX_USER = "65534:65534"
REPO_MOUNT = "/repo"
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
LABEL_RUN = "io.verify-pr.run"
LABEL_OWNER = "io.verify-pr.owner"

# tmpfs pages count against the memory cgroup: the sizes (with /dev/shm) add up to less than
# the memory limit, so a disk fill meets ENOSPC, not an OOM kill of the wrapper.
TMPFS: dict[str, str] = {
    WORK_DIR: "rw,exec,nosuid,nodev,size=256m,nr_inodes=262144,uid=65534,gid=65534,mode=0755",
    "/cap": "rw,noexec,nosuid,nodev,size=8m,nr_inodes=1024,uid=65534,gid=65534,mode=0700",
    "/tmp": "rw,noexec,nosuid,nodev,size=128m,nr_inodes=65536,mode=1777",  # noqa: S108 (a path in the container)
}


# verify-pr's own seccomp profile (written by scripts/seccomp_profile.py, which says why each
# call is in it): Docker's default allow-list without io_uring, most socket families and the
# 32-bit ABIs. The SDK is given its text; `docker run` is given its path.
SECCOMP_FILE = "seccomp.json"


def _script(name: str) -> str:
    return resources.files("verify_pr.sandbox").joinpath(name).read_text(encoding="utf-8")


def seccomp_path() -> str:
    """Where the shipped profile is on disk (package data of a normal install)."""
    return str(resources.files("verify_pr.sandbox").joinpath(SECCOMP_FILE))


@dataclass(frozen=True)
class SandboxPolicy:
    """Every control of the spec's table for one run."""

    image: str
    repo: str
    command: str
    timeout_s: int
    max_output: int
    name: str
    report_path: str | None = None
    coverage_path: str | None = None
    path_env: str = DEFAULT_PATH
    labels: dict[str, str] = field(default_factory=dict)
    memory: str = "512m"
    pids_limit: int = 256
    nano_cpus: int = 1_000_000_000
    shm_size: str = "32m"
    # The shipped scripts (stage 1 and the wrapper), read once per policy.
    boot_script: str = field(default_factory=lambda: _script("boot.sh"), repr=False)
    wrapper_script: str = field(default_factory=lambda: _script("wrapper.sh"), repr=False)
    seccomp_profile: str = field(default_factory=lambda: _script(SECCOMP_FILE), repr=False)

    @property
    def environment(self) -> dict[str, str]:
        # The daemon still adds HOSTNAME and the image's ENV; the wrapper runs the check under
        # `env -i` with exactly these three, and the engine refuses images with risky ENV.
        return {"PATH": self.path_env, "HOME": WORK_DIR, "CI": "1"}

    @property
    def argv(self) -> list[str]:
        """The container's full command: stage 1 shell, then the wrapper and its arguments."""
        return [
            "/bin/sh",
            "-c",
            self.boot_script,
            "verify-pr-boot",
            self.wrapper_script,
            self.command,
            str(self.timeout_s),
            str(self.max_output + 1),  # one byte over the cap tells the host it was cut
            self.report_path or "-",
            self.coverage_path or "-",
        ]

    @property
    def memory_bytes(self) -> int:
        """The memory limit in bytes, as the daemon reports it (``512m``, ``2g``)."""
        units = {"m": 1 << 20, "g": 1 << 30}
        return int(self.memory[:-1]) * units[self.memory[-1]]

    @property
    def security_opt(self) -> list[str]:
        """As the daemon stores them: what the engine checks on the created container."""
        return ["no-new-privileges", f"seccomp={self.seccomp_profile}"]

    def create_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``docker.APIClient.create_container`` and its host config."""
        return {
            "image": self.image,
            "entrypoint": self.argv[:1],
            "command": self.argv[1:],
            "user": SANDBOX_USER,
            "working_dir": WORK_DIR,
            "environment": self.environment,
            "hostname": "sandbox",
            "labels": dict(self.labels),
            "stdin_open": True,
            "tty": False,
            "healthcheck": {"test": ["NONE"]},
            "name": self.name,
            "host_config": self.host_config(),
        }

    def host_config(self) -> dict[str, Any]:
        """Arguments for ``APIClient.create_host_config``."""
        return {
            "network_mode": "none",
            "read_only": True,
            "tmpfs": dict(TMPFS),
            "cap_drop": ["ALL"],
            "security_opt": self.security_opt,
            "pids_limit": self.pids_limit,
            "mem_limit": self.memory,
            "memswap_limit": self.memory,
            "nano_cpus": self.nano_cpus,
            "init": True,
            "ipc_mode": "private",
            "shm_size": self.shm_size,
            "ulimits": [{"Name": "core", "Soft": 0, "Hard": 0}],
            "binds": {self.repo: {"bind": REPO_MOUNT, "mode": "ro"}},
            "log_config": {"Type": "none", "Config": {}},
            "auto_remove": False,
            "privileged": False,
        }

    def docker_argv(self) -> list[str]:
        """The equivalent ``docker run`` command line, from the same fields."""
        hc = self.host_config()
        out = ["docker", "run", "--rm", "-i", "--pull", "never", "--name", self.name]
        out += ["--network", hc["network_mode"], "--read-only"]
        for target, opts in hc["tmpfs"].items():
            out += ["--tmpfs", f"{target}:{opts}"]
        out += ["--user", SANDBOX_USER, "--cap-drop", "ALL"]
        for opt in hc["security_opt"]:
            # The CLI takes the profile's path, reads it and sends the text the SDK is given.
            shown = f"seccomp={seccomp_path()}" if opt.startswith("seccomp=") else opt
            out.append(f"--security-opt={shown}")
        out += ["--pids-limit", str(hc["pids_limit"]), "--memory", self.memory]
        out += ["--memory-swap", self.memory, "--cpus", f"{self.nano_cpus / 1e9:g}", "--init"]
        out += ["--ipc", hc["ipc_mode"], "--shm-size", self.shm_size, "--ulimit", "core=0:0"]
        out += ["--log-driver", hc["log_config"]["Type"], "--no-healthcheck"]
        out += ["--hostname", "sandbox", "--workdir", WORK_DIR]
        out += ["--mount", f"type=bind,source={self.repo},target={REPO_MOUNT},readonly"]
        for key, value in self.environment.items():
            out += ["--env", f"{key}={value}"]
        for key, value in self.labels.items():
            out += ["--label", f"{key}={value}"]
        out += ["--entrypoint", self.argv[0], self.image, *self.argv[1:]]
        return out

    def docker_command_line(self) -> str:
        return shlex.join(self.docker_argv())
