#!/usr/bin/env python3
"""Write the sandbox's seccomp profile, src/verify_pr/sandbox/seccomp.json, from this file.

JSON has no comments, so the profile's reasons live here. It is an allow-list: every syscall
not named below fails with EPERM (``defaultAction`` SCMP_ACT_ERRNO, ``defaultErrnoRet`` 1).
The list started from Docker's default profile (moby's ``profiles/seccomp/default.json``), kept
only what that profile allows to a container without capabilities (the sandbox drops them all,
so every rule that Docker's profile gates on a capability is left out), and then closes what
Engine 20.10's default profile leaves open and a test suite never needs:

- io_uring (``io_uring_setup``, ``io_uring_enter``, ``io_uring_register``): a large kernel
  surface with a long record of privilege escalations; no test runner needs it.
- ``socket`` only for AF_UNIX, AF_INET, AF_INET6 (loopback tests) and AF_NETLINK (glibc's
  getifaddrs and Python's and Node's interface queries); every other family (AF_VSOCK, which
  reaches the VM host, AF_PACKET, AF_ALG, AF_KEY, AF_BLUETOOTH, AF_TIPC, AF_RDS, ...) is
  refused before the kernel can load a module for it. ``socketpair`` only for AF_UNIX. The
  comparisons are equalities (an allow-list): a family with high bits set is refused, not
  truncated into an allowed one.
- ``userfaultfd`` stays out (it is out of Docker's list too): it stretches kernel race windows.
- Only the 64-bit ABIs (x86_64, aarch64): no 32-bit or x32 sub-architecture, so no
  ``socketcall`` whose arguments seccomp cannot read, and no legacy entry points.
- ``modify_ldt`` (x86 only, used by old 16-bit emulators) and the memory-protection-key calls
  and ``name_to_handle_at``, which Engine 20.10's own default profile refuses.

``clone`` is allowed without namespace flags only, and ``clone3`` (whose flags live in memory
seccomp cannot read) fails with ENOSYS so that glibc falls back to ``clone``, as Docker's
profile does. Syscalls newer than the newest one named here get ENOSYS from the runtime (runc),
so a libc that probes for them falls back too.

    .venv/bin/python scripts/seccomp_profile.py          # rewrite the shipped profile
    .venv/bin/python scripts/seccomp_profile.py --check  # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "src" / "verify_pr" / "sandbox" / "seccomp.json"

# Address families (linux/socket.h) a test may open; everything else is refused.
AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
SOCKET_FAMILIES = (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK)
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (linux/sched.h).
CLONE_NAMESPACE_FLAGS = 0x7E020000
# personality(2) values that do not change the ABI: PER_LINUX, UNAME26, ADDR_NO_RANDOMIZE
# (what `setarch -R` asks for) with and without UNAME26, and the query 0xffffffff.
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)
ENOSYS = 38

FILES = """
access chdir chmod chown close close_range copy_file_range creat dup dup2 dup3 faccessat
faccessat2 fadvise64 fallocate fchdir fchmod fchmodat fchown fchownat fcntl fdatasync flock
fstat fstatfs fsync ftruncate futimesat getcwd getdents getdents64 lchown link linkat lseek
lstat mkdir mkdirat mknod mknodat newfstatat open openat openat2 readlink readlinkat rename
renameat renameat2 rmdir stat statfs statx symlink symlinkat sync sync_file_range syncfs
truncate umask unlink unlinkat utime utimensat utimes
"""
XATTRS = """
fgetxattr flistxattr fremovexattr fsetxattr getxattr lgetxattr listxattr llistxattr
lremovexattr lsetxattr removexattr setxattr
"""
IO = """
epoll_create epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait
epoll_wait_old eventfd eventfd2 fanotify_mark inotify_add_watch inotify_init inotify_init1
inotify_rm_watch io_cancel io_destroy io_getevents io_pgetevents io_setup io_submit ioctl
ioprio_get ioprio_set pipe pipe2 poll ppoll pread64 preadv preadv2 pselect6 pwrite64 pwritev
pwritev2 read readahead readv select sendfile splice tee vmsplice write writev
"""
MEMORY = """
brk madvise membarrier memfd_create memfd_secret mincore mlock mlock2 mlockall mmap mprotect
mremap msync munlock munlockall munmap remap_file_pages
"""
PROCESSES = """
capget capset execve execveat exit exit_group fork get_robust_list get_thread_area getcpu
getpgid getpgrp getpid getppid getpriority getrlimit getrusage getsid gettid
landlock_add_rule landlock_create_ruleset landlock_restrict_self pidfd_open
pidfd_send_signal prctl prlimit64 process_mrelease ptrace rseq seccomp set_robust_list
set_thread_area set_tid_address setpgid setpriority setrlimit setsid vfork wait4 waitid
"""
IDENTITY = """
getegid geteuid getgid getgroups getresgid getresuid getuid setfsgid setfsuid setgid
setgroups setregid setresgid setresuid setreuid setuid
"""
SIGNALS = """
kill pause restart_syscall rt_sigaction rt_sigpending rt_sigprocmask rt_sigqueueinfo
rt_sigreturn rt_sigsuspend rt_sigtimedwait rt_tgsigqueueinfo sigaltstack signalfd signalfd4
tgkill tkill
"""
TIME = """
adjtimex alarm clock_adjtime clock_getres clock_gettime clock_nanosleep getitimer
gettimeofday nanosleep setitimer time timer_create timer_delete timer_getoverrun
timer_gettime timer_settime timerfd_create timerfd_gettime timerfd_settime times
"""
IPC = """
futex futex_waitv mq_getsetattr mq_notify mq_open mq_timedreceive mq_timedsend mq_unlink
msgctl msgget msgrcv msgsnd semctl semget semop semtimedop shmat shmctl shmdt shmget
"""
# The other socket calls: what a socket may do depends on the families `socket` allows.
SOCKETS = """
accept accept4 bind connect getpeername getsockname getsockopt listen recvfrom recvmmsg
recvmsg sendmmsg sendmsg sendto setsockopt shutdown
"""
SCHEDULING = """
sched_get_priority_max sched_get_priority_min sched_getaffinity sched_getattr
sched_getparam sched_getscheduler sched_rr_get_interval sched_setaffinity sched_setattr
sched_setparam sched_setscheduler sched_yield
"""
SYSTEM = "getrandom sysinfo uname"
GROUPS = (FILES, XATTRS, IO, MEMORY, PROCESSES, IDENTITY, SIGNALS, TIME, IPC, SOCKETS)
GROUPS += (SCHEDULING, SYSTEM)
# Arch-specific entry points of 64-bit processes (Docker's names for the arches).
X86_64_ONLY = "arch_prctl"
AARCH64_ONLY = "arm_fadvise64_64 arm_sync_file_range sync_file_range2 breakpoint cacheflush set_tls"


def _names(*groups: str) -> list[str]:
    return sorted({name for group in groups for name in group.split()})


def _equal(index: int, value: int, op: str = "SCMP_CMP_EQ") -> dict[str, Any]:
    return {"index": index, "value": value, "op": op}


def _allow(names: list[str], comment: str, **extra: Any) -> dict[str, Any]:  # noqa: ANN401
    return {"names": names, "action": "SCMP_ACT_ALLOW", "comment": comment, **extra}


def profile() -> dict[str, Any]:
    syscalls: list[dict[str, Any]] = [_allow(_names(*GROUPS), "what a test suite uses")]
    syscalls += [
        _allow(["socket"], f"address family {f} only", args=[_equal(0, f)]) for f in SOCKET_FAMILIES
    ]
    syscalls.append(_allow(["socketpair"], "AF_UNIX only", args=[_equal(0, AF_UNIX)]))
    syscalls += [
        _allow(["personality"], f"personality {p:#x} only", args=[_equal(0, p)])
        for p in PERSONALITIES
    ]
    syscalls.append(
        _allow(
            ["clone"],
            "no namespace flags",
            args=[_equal(0, CLONE_NAMESPACE_FLAGS, "SCMP_CMP_MASKED_EQ") | {"valueTwo": 0}],
        )
    )
    syscalls.append(
        {
            "names": ["clone3"],
            "action": "SCMP_ACT_ERRNO",
            "errnoRet": ENOSYS,
            "comment": "its flags are in memory: ENOSYS makes glibc fall back to clone",
        }
    )
    syscalls.append(_allow(_names(X86_64_ONLY), "x86_64", includes={"arches": ["amd64"]}))
    syscalls.append(_allow(_names(AARCH64_ONLY), "aarch64", includes={"arches": ["arm64"]}))
    return {
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": 1,
        "archMap": [
            {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": []},
            {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": []},
        ],
        "syscalls": syscalls,
    }


def render() -> str:
    return json.dumps(profile(), indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = PROFILE.read_text(encoding="utf-8") if PROFILE.exists() else ""
        if current != text:
            print(f"{PROFILE.relative_to(ROOT)} is out of date: run {sys.argv[0]}")
            return 1
        return 0
    PROFILE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
