"""The capture and the sweep: attacks on the processes the sweep must spare.

The capture (the wrapper's background subshell and its `head`) is the only thing besides
init and the wrapper that the sweep leaves alive. A check may stop it (SIGSTOP), or kill it
and wait for its pid to come round again so that the sweep spares an impostor.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from tests.hostile.helpers import RECORD, attack, containers_of, control, expect, results
from tests.sandbox_helpers import make_repo
from verify_pr.sandbox.engine import EngineSettings
from verify_pr.sandbox.policy import SandboxPolicy
from verify_pr.sandbox.run import PolicyFactory, SandboxRequest, make_policy, run_sandbox

# The capture processes are the wrapper's forks: same command line as the wrapper, other pid.
FIND_CAPTURE = r"""
w=$PPID caps=
for p in /proc/[0-9]*; do p=${p#/proc/}
  [ "$p" = "$w" ] && continue
  case "$(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)" in
    "/work/.verify-pr-wrapper/sh -c "*) caps="$caps $p";;
  esac
done
"""


def _wrapper_with(*edits: tuple[str, str]) -> PolicyFactory:
    """A test-only wrapper: the shipped script with lines changed (never a user option)."""

    def policy_for(request: SandboxRequest, path_env: str, run_id: str) -> SandboxPolicy:
        shipped = make_policy(request, path_env, run_id)
        text = shipped.wrapper_script
        for old, new in edits:
            assert old in text
            text = text.replace(old, new)
        return dataclasses.replace(shipped, wrapper_script=text)

    return policy_for


def test_stopped_capture_is_woken_by_the_sweep(minimal_image: str, tmp_path: Path) -> None:
    cmd = FIND_CAPTURE + 'echo "stopping:$caps"; kill -STOP $caps; exit 0'
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "20")
    expect(run, "COMPLETED", 0, "the check exited 0")
    assert run.elapsed_s < 20
    # Positive control: without the wake-up (the sweep's `kill -CONT` of capture processes)
    # the stopped capture holds the wrapper until the host watchdog ends the run.
    no_wake_up = _wrapper_with(('[ -n "$caps" ] && kill -CONT $caps', ": no wake-up"))
    stuck = run_sandbox(
        SandboxRequest(make_repo(tmp_path / "ctl"), cmd, minimal_image, 3, 1000),
        EngineSettings(watchdog_grace_s=1),
        policy_for=no_wake_up,
    )
    assert (stuck.result.status, stuck.result.exit_code) == ("TIMEOUT", None), stuck.result
    assert not containers_of(os.getpid())
    control("without the wake-up the run hangs until the watchdog (TIMEOUT)")


# The parent pid and start time (fields 4 and 22 of /proc/PID/stat; ticks) of each process.
START_TIMES = r"""
st() { read -r l < /proc/$1/stat; set -- ${l##*") "}; echo "$2 ${20}"; }
echo "RESULT check=$(st $$)"
echo "RESULT wrapper-pid=$PPID"
for c in $caps; do echo "RESULT capture-$c=$(st $c)"; done
"""


def test_the_check_never_shares_the_captures_start_tick(minimal_image: str, tmp_path: Path) -> None:
    # The sweep tells the capture from a pid reuser by its start time, counted in 10 ms ticks.
    # The wrapper starts the check only after the tick has moved past the capture's, so no
    # process of the check (the impostor below included) can carry the capture's start time.
    # Without that wait the check's first process shares the capture's tick in most runs.
    run = attack(tmp_path, minimal_image, FIND_CAPTURE + START_TIMES, "--timeout", "20")
    expect(run, "COMPLETED", 0, "the check exited 0")
    got = results(run.output)
    wrapper = got["wrapper-pid"]
    check_ppid, check = got["check"].split()
    found = [v.split() for k, v in got.items() if k.startswith("capture-")]
    # The capture is the wrapper's fork (its head may be the capture's own fork, spared as its
    # child). Control: the probe finds it, a sibling of the check, with a real start time.
    capture = [int(start) for ppid, start in found if ppid == wrapper]
    assert len(capture) == 1 and check_ppid == wrapper, got
    control("the probe finds the capture, the check's sibling, and reads its start time")
    assert capture[0] < int(check), got
    RECORD.append(("outcome", "the check starts in a later tick than the capture"))


# Simulates the end state of a pid-reuse attack (kill the capture, cycle ~4 million pids until
# its pid comes round: about 25 min at this machine's fork rate, inside the 3600 s timeout):
# a check process whose pid the wrapper takes for its capture's. The impostor prints on the
# SIGCONT the sweep sends to spared captures, proving it survived the sweep.
IMPOSTOR = (
    FIND_CAPTURE
    + r"""
kill -9 $caps
trap '' PIPE
exec > /proc/1/fd/1 2>&1
sh -c 'trap "echo RESULT impostor=survived-the-sweep" CONT; while :; do :; done' &
echo $! > /work/.impostor
sleep 0.5
exit 0
"""
)


def test_pid_reuse_impostor_is_swept(minimal_image: str, tmp_path: Path) -> None:
    # The test-only wrapper takes the impostor's pid as its capture's, as a wrapped pid would.
    take = "rc=$?\n"
    adopt = "rc=$?\nread -r capper < /work/.impostor\n"
    run = run_sandbox(
        SandboxRequest(make_repo(tmp_path), IMPOSTOR, minimal_image, 20, 10000),
        policy_for=_wrapper_with((take, adopt)),
    )
    assert not containers_of(os.getpid())
    assert (run.result.status, run.result.exit_code) == ("COMPLETED", 0), run.result
    assert "impostor" not in results(run.output)
    RECORD.append(("outcome", "COMPLETED exit 0, impostor swept"))
    # Positive control: judged by pid alone (no start-time check), the impostor is spared.
    pid_alone = take + "read -r capper < /work/.impostor\n"
    by_pid_alone = _wrapper_with((take, pid_alone), ('[ -n "$genuine" ] || return 1', ":"))
    spared = run_sandbox(
        SandboxRequest(make_repo(tmp_path / "ctl"), IMPOSTOR, minimal_image, 20, 10000),
        policy_for=by_pid_alone,
    )
    text = spared.output.decode("utf-8", "replace") + spared.result.detail
    assert "survived-the-sweep" in text or "continued after" in text, spared
    control("trusting the pid alone, the impostor survives the sweep")
