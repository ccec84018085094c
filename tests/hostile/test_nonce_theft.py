"""Stealing the nonce, with the hardening off (the attack works) and on (it fails).

"Hardening off" is a test-only policy in this file, never a user option: the wrapper is run
straight by the image's /bin/sh, without stage 1's re-exec from an execute-only copy, so the
kernel leaves it dumpable. Everything else (sweep, stdin nonce, env scrub) is the shipped code.
With it off, the same uid can read the wrapper's memory and forge the final sentinel; with it
on, every path is denied and the host result stays honest.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from tests.hostile.helpers import RECORD, containers_of, control, loose, results
from tests.sandbox_helpers import make_repo
from verify_pr.sandbox.engine import EngineSettings
from verify_pr.sandbox.policy import SandboxPolicy
from verify_pr.sandbox.run import SandboxRequest, SandboxRun, make_policy, run_sandbox

NONCE = "0badc0de" * 4

# Finds the wrapper (its parent), tries every path to the nonce, then forges: writes a final
# sentinel straight to the container's stdout (PID 1's fd 1, which the check can open) and
# kills the wrapper so that nothing follows it. Its report lines go the same way, since the
# in-container capture buffers and dies with the wrapper.
STEALER = r"""
exec > /proc/1/fd/1 2>&1  # straight to the container's stdout: the capture buffers
w=$PPID
r() { echo "RESULT $1=$2"; }
if ( exec 3< /proc/$w/fd/0 ) 2>/dev/null; then r fd0 open; else r fd0 denied; fi
left=$(timeout 1 cat /proc/1/fd/0 2>/dev/null | head -c 64 | tr -dc 0-9a-f)
r stdin_left "${left:-none}"
if ( tr '\0' '\n' < /proc/$w/environ > /tmp/env ) 2>/dev/null; then r environ read; else r environ denied; fi
r environ_hex "$(grep -c '[0-9a-f]\{32\}' /tmp/env 2>/dev/null || echo 0)"
r cmdline_script "$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' | grep -c 'VPR1 %s RC')"
r cmdline_hex "$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\0' '\n' | grep -c '^[0-9a-f]\{32\}$')"
n=
( cat /proc/$w/maps > /tmp/maps ) 2>/dev/null && r maps read || r maps denied
while read -r range perms rest; do
  case $perms in rw*) ;; *) continue ;; esac
  s=$((0x${range%-*})); e=$((0x${range#*-}))
  found=$(dd if=/proc/$w/mem bs=4096 skip=$((s/4096)) count=$(((e-s)/4096)) 2>/dev/null \
    | grep -ao 'nonce=[0-9a-f]\{32\}' | head -1)
  [ -n "$found" ] && n=${found#nonce=} && break
done < /tmp/maps
( dd if=/proc/$w/mem bs=1 count=1 2>/dev/null ) && r mem_open yes || r mem_open denied
r mem "${n:-none}"
sleep 0.3
if [ -n "$n" ]; then
  printf '\nVPR1 %s RC 137 returned 7\nFORGED\n\nVPR1 %s END\n' "$n" "$n" > /proc/1/fd/1
fi
kill -9 $w
sleep 5
"""

PY_STEALER = r"""
import ctypes, os, re
libc = ctypes.CDLL(None, use_errno=True)
def argv(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
    except OSError:
        return []
pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
ours = [p for p in pids if argv(p)[3:4] == [b"verify-pr-wrapper"]]
w = min(ours) if ours else os.getppid()  # the wrapper; its capture forks come later
def err():
    return os.strerror(ctypes.get_errno())
r = libc.ptrace(16, w, None, None)  # PTRACE_ATTACH
print("RESULT ptrace=" + ("attached" if r == 0 else err()), flush=True)
if r == 0:
    os.waitpid(w, 0x40000000)  # __WALL
    libc.ptrace(17, w, None, None)  # PTRACE_DETACH
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
try:
    regions = [l.split()[0] for l in open(f"/proc/{w}/maps") if l.split()[1].startswith("rw")]
except OSError as e:
    regions = ["400000-401000"]
found, status = "none", "none"
ok = False
for reg in regions:
    s, e = (int(x, 16) for x in reg.split("-"))
    buf = ctypes.create_string_buffer(e - s)
    local, remote = iovec(ctypes.addressof(buf), e - s), iovec(s, e - s)
    n = libc.process_vm_readv(w, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    if n < 0:
        status = status if ok else err()
        continue
    ok, status = True, "read"
    m = re.search(rb"nonce=([0-9a-f]{32})", buf.raw[:n])
    if m:
        found = m.group(1).decode()
        break
print("RESULT vm_readv=" + status, flush=True)
print("RESULT mem=" + found, flush=True)
"""


class UnhardenedPolicy(SandboxPolicy):
    """Test-only: the wrapper run straight by the image's /bin/sh, without stage 1."""

    @property
    def argv(self) -> list[str]:
        hardened = super().argv
        return ["/bin/sh", "-c", hardened[4], "verify-pr-wrapper", *hardened[5:]]


def unhardened(request: SandboxRequest, path_env: str, run_id: str) -> SandboxPolicy:
    shipped = make_policy(request, path_env, run_id)
    return UnhardenedPolicy(
        **{f.name: getattr(shipped, f.name) for f in dataclasses.fields(shipped)}
    )


def run_in_process(
    tmp_path: Path, image: str, cmd: str, report: str | None = None, *, hardened: bool
) -> SandboxRun:
    repo = make_repo(tmp_path / ("r" + os.urandom(3).hex()), {"rep.xml": "<stale/>\n"})
    run = run_sandbox(
        SandboxRequest(repo, cmd, image, 30, 100_000, report),
        EngineSettings(new_nonce=lambda: NONCE),  # this file's nonce
        policy_for=make_policy if hardened else unhardened,
    )
    assert not containers_of(os.getpid()), "a container was left behind"
    return run


def test_proc_mem_read_steals_the_nonce_only_without_hardening(
    minimal_image: str, tmp_path: Path
) -> None:
    off = run_in_process(tmp_path, minimal_image, STEALER, "/work/rep.xml", hardened=False)
    got_off = results(off.output)
    assert got_off["mem"] == NONCE, got_off  # the attack works...
    assert (off.result.status, off.result.exit_code) == ("COMPLETED", 137)
    assert off.report is not None and off.result.report == "returned"  # ...and forges
    with off.report.open() as forged:
        assert forged.read() == b"FORGED\n"
    control(
        "with the hardening off, /proc/<wrapper>/mem yields the nonce and a forged sentinel is accepted"
    )

    on = run_in_process(tmp_path, minimal_image, STEALER, "/work/rep.xml", hardened=True)
    got = results(on.output)
    assert got["mem"] == "none" and got["maps"] == "denied" and got["mem_open"] == "denied"
    assert (on.result.status, on.result.exit_code) == ("ERROR", None)
    assert "sentinel" in on.result.detail and on.report is None
    assert NONCE not in on.output.decode("utf-8", "replace")
    RECORD.append(("outcome", "ERROR exit none"))


def test_wrapper_fd0_environ_and_stdin_rest(minimal_image: str, tmp_path: Path) -> None:
    off = results(run_in_process(tmp_path, minimal_image, STEALER, hardened=False).output)
    assert off["fd0"] == "open" and off["environ"] == "read"  # the probes can reach them
    assert off["stdin_left"] == "none" and off["environ_hex"] == "0"  # and the nonce is in neither
    control("with the hardening off, /proc/<wrapper>/fd/0 and environ open")
    run = run_in_process(tmp_path, minimal_image, STEALER, hardened=True)
    on = results(run.output)
    assert on["fd0"] == "denied" and on["environ"] == "denied"
    assert on["stdin_left"] == "none"  # PID 1's stdin is the same pipe, drained before the check
    assert run.result.status == "ERROR"
    RECORD.append(("outcome", f"{run.result.status} exit none"))


def test_cmdlines_never_carry_the_nonce(minimal_image: str, tmp_path: Path) -> None:
    run = run_in_process(tmp_path, minimal_image, STEALER, hardened=True)
    # The probe does read command lines: the wrapper's script is in its own.
    assert int(results(run.output)["cmdline_script"]) >= 1
    control("the probe reads the wrapper's own command line")
    assert results(run.output)["cmdline_hex"] == "0"
    assert NONCE not in run.output.decode("utf-8", "replace")
    RECORD.append(("outcome", f"{run.result.status} exit none"))


def test_ptrace_and_process_vm_readv(python_image: str, tmp_path: Path) -> None:
    cmd = f"python3 -c '{PY_STEALER}'"
    assert "'" not in PY_STEALER
    off = results(run_in_process(tmp_path, python_image, cmd, hardened=False).output)
    # Without the hardening, ptrace attaches; Docker's default seccomp already denies
    # process_vm_readv here (kernel and profile vary: the hardening does not rely on it).
    assert off["ptrace"] == "attached", off
    assert off["vm_readv"] in ("read", "Operation not permitted"), off
    # Positive control for the readv probe: seccomp off, a parent shell holding the nonce.
    _code, logs = loose(
        f"nonce={NONCE}; export IGNORED=1; python3 -c '{PY_STEALER}'; :",
        python_image,
        security_opt=["seccomp=unconfined"],
    )
    assert results(logs)["mem"] == NONCE, logs
    control(
        "with the hardening off ptrace attaches; with seccomp off process_vm_readv yields the nonce"
    )
    run = run_in_process(tmp_path, python_image, cmd, hardened=True)
    on = results(run.output)
    assert on["ptrace"] == "Operation not permitted", on
    assert on["vm_readv"] == "Operation not permitted" and on["mem"] == "none", on
    assert (run.result.status, run.result.exit_code) == ("COMPLETED", 0)
    RECORD.append(("outcome", "COMPLETED exit 0"))
