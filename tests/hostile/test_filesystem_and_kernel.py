"""Filesystem and exec (noexec tmpfs, read-only root and repo) and kernel surfaces."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hostile.helpers import attack, control, expect, loose, results

EXEC = "cp /bin/busybox {d}/true && {d}/true; echo RESULT rc=$?"


@pytest.mark.parametrize("where", ["/cap", "/tmp", "/dev/shm"])
def test_exec_from_noexec_tmpfs_is_refused(minimal_image: str, tmp_path: Path, where: str) -> None:
    cmd = EXEC.format(d=where) + "; " + EXEC.format(d="/work").replace("rc=", "work_rc=")
    run = attack(tmp_path, minimal_image, cmd)
    expect(run, "COMPLETED", 0)
    got = results(run.output)
    assert got["rc"] == "126" and b"Permission denied" in run.output
    assert got["work_rc"] == "0"
    control("the same copy runs from /work, the one exec tmpfs")


@pytest.mark.parametrize("where", ["/", "/etc", "/repo", "/usr"])
def test_writes_outside_the_tmpfs_are_refused(
    minimal_image: str, tmp_path: Path, where: str
) -> None:
    cmd = f"if ( echo x > {where}/pwned ) 2>/dev/null; then echo RESULT w=ok; else echo RESULT w=refused; fi"
    run = attack(tmp_path, minimal_image, cmd)
    expect(run, "COMPLETED", 0)
    assert results(run.output)["w"] == "refused"
    assert not (tmp_path / "repo" / "pwned").exists()
    _code, logs = loose("mkdir -p /repo; " + cmd)
    assert results(logs)["w"] == "ok"
    control("root with a writable root filesystem can write there")


POSTURE = "grep -E '^(CapEff|NoNewPrivs|Seccomp):' /proc/self/status | tr -d '\\t' | sed 's/^/RESULT /; s/:/=/'"


def test_posture(minimal_image: str, tmp_path: Path) -> None:
    run = attack(tmp_path, minimal_image, POSTURE)
    expect(run, "COMPLETED", 0)
    got = results(run.output)
    assert (got["CapEff"], got["NoNewPrivs"], got["Seccomp"]) == ("0000000000000000", "1", "2")
    ctl = results(loose(POSTURE, security_opt=["seccomp=unconfined"])[1])
    assert (
        ctl["CapEff"] != "0000000000000000" and ctl["NoNewPrivs"] == "0" and ctl["Seccomp"] == "0"
    )
    control("a loose container has capabilities, no NoNewPrivs, no seccomp")


KERNEL = r"""
import ctypes, os, socket
libc = ctypes.CDLL(None, use_errno=True)
def sc(n, *a):
    r = libc.syscall(n, *a)
    return "allowed" if r >= 0 else os.strerror(ctypes.get_errno())
def sock(name, family, kind):  # created, never connected
    try:
        socket.socket(family, kind).close()
        print("RESULT " + name + "=allowed", flush=True)
    except OSError as e:
        print("RESULT " + name + "=" + e.strerror, flush=True)
print("RESULT keyctl=" + sc(250, 0, -3, 0), flush=True)
print("RESULT add_key=" + sc(248, b"user", b"vpr", b"x", 1, -3), flush=True)
print("RESULT io_uring=" + sc(425, 4, ctypes.create_string_buffer(120)), flush=True)
# UFFD_USER_MODE_ONLY | O_NONBLOCK | O_CLOEXEC: what an unprivileged process may ask for.
print("RESULT userfaultfd=" + sc(323, 1 | 0o4000 | 0o2000000), flush=True)
sock("vsock", 40, socket.SOCK_STREAM)
sock("alg", 38, socket.SOCK_SEQPACKET)
sock("bluetooth", 31, socket.SOCK_STREAM)
"""
KERNEL_CMD = f"python3 -c '{KERNEL}'"
DENIED = "Operation not permitted"
# The sandbox's user, capabilities and no-new-privileges, without verify-pr's profile.
SANDBOX_USER = {"user": "65534:65534", "cap_drop": ["ALL"]}


@pytest.fixture(scope="module")
def kernel_control(python_image: str) -> dict[str, str]:
    _code, logs = loose(KERNEL_CMD, python_image, security_opt=["seccomp=unconfined"])
    return results(logs)


@pytest.fixture(scope="module")
def default_profile_control(python_image: str) -> dict[str, str]:
    """The daemon's own default profile (no seccomp option), as the sandbox's user."""
    _code, logs = loose(
        KERNEL_CMD, python_image, security_opt=["no-new-privileges"], **SANDBOX_USER
    )
    return results(logs)


def sandboxed(tmp_path: Path, image: str) -> dict[str, str]:
    """The probe in the real sandbox (each test records its own run for the table)."""
    run = attack(tmp_path, image, KERNEL_CMD)
    expect(run, "COMPLETED", 0)
    return results(run.output)


@pytest.mark.parametrize("surface", ["keyctl", "add_key"])
def test_key_syscalls_are_denied(
    python_image: str, tmp_path: Path, surface: str, kernel_control: dict[str, str]
) -> None:
    assert sandboxed(tmp_path, python_image)[surface] == DENIED
    assert kernel_control[surface] == "allowed"
    control("allowed with seccomp unconfined")


@pytest.mark.parametrize("surface", ["io_uring", "vsock"])
def test_io_uring_and_vsock_are_denied(
    python_image: str, tmp_path: Path, surface: str, default_profile_control: dict[str, str]
) -> None:
    # Engine 20.10's default profile lets both through; verify-pr's own profile does not.
    assert default_profile_control[surface] == "allowed"
    control("allowed under the daemon's default seccomp profile, as the sandbox's user")
    assert sandboxed(tmp_path, python_image)[surface] == DENIED


@pytest.mark.parametrize("surface", ["alg", "bluetooth"])
def test_other_socket_families_are_refused_before_the_kernel(
    python_image: str, tmp_path: Path, surface: str, default_profile_control: dict[str, str]
) -> None:
    # Under the default profile the call reaches the kernel, which creates the socket or says
    # the family is not built in (it may first try to load its module); under ours it never
    # gets there.
    assert default_profile_control[surface] != DENIED
    control("reaches the kernel under the daemon's default seccomp profile")
    assert sandboxed(tmp_path, python_image)[surface] == DENIED


def test_userfaultfd_is_denied(
    python_image: str, tmp_path: Path, default_profile_control: dict[str, str]
) -> None:
    # The daemon's default profile refuses it too, so the control is the sandbox's user with
    # seccomp unconfined: the kernel allows a user-mode-only userfaultfd to anyone.
    _code, logs = loose(
        KERNEL_CMD,
        python_image,
        security_opt=["no-new-privileges", "seccomp=unconfined"],
        **SANDBOX_USER,
    )
    assert results(logs)["userfaultfd"] == "allowed"
    control("allowed to the sandbox's user with seccomp unconfined")
    assert sandboxed(tmp_path, python_image)["userfaultfd"] == DENIED
    assert default_profile_control["userfaultfd"] == DENIED


# Every x86_64 syscall number with all-ones arguments, each in a forked child (so one that
# blocks or kills only ends that child): errno 1 (EPERM) or 38 (ENOSYS, the runtime's answer
# for numbers past the profile's newest) means refused. A call the kernel itself refuses with
# EPERM for these arguments looks the same under both profiles, so the comparison is fair.
SKIPPED = {15, 34, 60, 231}  # rt_sigreturn, pause, exit, exit_group
EVERY_SYSCALL = rf"""
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
bad = ctypes.c_long(-1)
for nr in range(470):
    if nr in {sorted(SKIPPED)}:
        continue
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        signal.alarm(1)
        rc = libc.syscall(nr, bad, bad, bad, bad, bad, bad)
        os.write(w, str(ctypes.get_errno() if rc == -1 else 0).encode())
        os._exit(0)
    os.close(w)
    got = os.read(r, 16).decode() or "signal"
    os.close(r)
    os.waitpid(pid, 0)
    print(f"RESULT {{nr}}={{got}}", flush=True)
"""
REFUSED = {"1", "38"}
# What verify-pr's profile refuses beyond the default one, by x86_64 number.
EXTRA_REFUSALS = {41: "socket", 53: "socketpair", 425: "io_uring_setup", 426: "io_uring_enter"}
EXTRA_REFUSALS |= {427: "io_uring_register"}


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the probe uses x86_64 numbers")
def test_the_profile_refuses_all_the_default_profile_refuses(
    python_image: str, tmp_path: Path
) -> None:
    cmd = f"python3 -c '{EVERY_SYSCALL}'"
    run = attack(tmp_path, python_image, cmd)
    expect(run, "COMPLETED", 0)
    ours = results(run.output)
    _code, logs = loose(cmd, python_image, security_opt=["no-new-privileges"], **SANDBOX_USER)
    default = results(logs)
    assert len(ours) == len(default) == 470 - len(SKIPPED)
    looser = sorted(
        int(nr) for nr, e in default.items() if e in REFUSED and ours[nr] not in REFUSED
    )
    assert looser == [], f"allowed here, refused by the daemon's default profile: {looser}"
    stricter = {int(nr) for nr, e in default.items() if e not in REFUSED and ours[nr] in REFUSED}
    assert set(EXTRA_REFUSALS) <= stricter, stricter
    control("the default profile lets socket(-1), socketpair(-1) and io_uring reach the kernel")
