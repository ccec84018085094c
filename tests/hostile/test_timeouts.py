"""Timeouts: whatever the check does to avoid ending, the host ends it and says TIMEOUT."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.hostile.helpers import alive_after, attack, control, expect, loose, results
from verify_pr.sandbox import engine

# (id, the check, attack, control): each check would run for ever without the timeout.
FOREVER = [
    ("busy-loop", "while :; do :; done", "CPU busy loop"),
    ("sleep", "sleep 1000", "sleep"),
    ("blocking-read", "mkfifo /tmp/f; read -r x < /tmp/f", "blocking read (select/pause)"),
    ("self-sigstop", "kill -STOP $$; sleep 1000", "the check SIGSTOPs itself"),
    (
        "stopped-tree",
        "sleep 1000 & a=$!; sh -c 'sleep 1000' & b=$!; kill -STOP $a $b; wait",
        "the check waits on a stopped process tree",
    ),
    ("ignore-term", "trap '' TERM INT HUP; sleep 1000", "ignoring SIGTERM"),
    (
        "setsid-escape",
        "setsid sh -c 'trap \"\" TERM; while :; do echo bg; sleep 0.1; done' & trap '' TERM; "
        "sleep 1000",
        "a setsid child outside the timeout's process group",
    ),
]


@pytest.mark.parametrize(("cmd", "what"), [f[1:] for f in FOREVER], ids=[f[0] for f in FOREVER])
def test_check_that_never_ends_is_timeout(
    minimal_image: str, tmp_path: Path, cmd: str, what: str, forever_control: dict[str, str]
) -> None:
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "1")
    res = expect(run, "TIMEOUT", 137, "killed at its 1 s timeout", truncated=None)
    assert run.elapsed_s < 1 + engine.WATCHDOG_GRACE_S, "the in-container timeout did not work"
    assert "VPR1" not in run.output.decode("utf-8", "replace")
    assert res["exit_code"] == 137
    # Positive control: with no timeout the same check is still running after 3 s.
    assert forever_control[cmd] == "alive", f"{what}: the probe ended by itself"
    control("still running after 3 s with no timeout")


@pytest.fixture(scope="module")
def forever_control() -> dict[str, str]:
    """All the never-ending checks at once in one loose container: which still run at 3 s?"""
    lines = []
    for i, (_, cmd, _) in enumerate(FOREVER):
        lines.append(f"sh -c {shlex.quote(f': mark-{i}-x; {cmd}')} > /dev/null 2>&1 &")
    lines.append("sleep 3")
    for i in range(len(FOREVER)):
        lines.append(
            f"s=gone; for p in /proc/[0-9]*; do case \"$(tr '\\0' ' ' < $p/cmdline)\" in "
            f"*'mark-{i}''-x'*) s=alive;; esac; done 2>/dev/null; echo \"RESULT {i}=$s\""
        )
    _code, logs = loose("\n".join(lines))
    got = results(logs)
    return {cmd: got.get(str(i), "missing") for i, (_, cmd, _) in enumerate(FOREVER)}


def test_stopping_the_whole_group_wrapper_included_is_timeout(
    minimal_image: str, tmp_path: Path
) -> None:
    """`kill -STOP 0` stops the wrapper and its timeout too: only the host watchdog is left."""
    cmd = "sleep 1000 & kill -STOP 0; sleep 1000"
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "1")
    expect(run, "TIMEOUT", None, "host watchdog", truncated=None)
    assert run.elapsed_s < 1 + engine.WATCHDOG_GRACE_S + 10
    assert alive_after(cmd, 3)
    control("still running after 3 s with no timeout")


def test_setsid_child_that_outlives_the_check_and_keeps_printing(
    minimal_image: str, tmp_path: Path
) -> None:
    cmd = "setsid sh -c 'while :; do echo daemon; done' & sleep 0.5; echo check-done; exit 0"
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "20", "--max-output", "100000")
    expect(run, "COMPLETED", 0, "the check exited 0", truncated=None)
    words = set(run.output.split()[:-1])
    assert words <= {b"daemon", b"check-done"} and b"daemon" in words
    assert b"VPR1" not in run.output
    # Control: without the sweep, the daemon is still alive after the check's shell ends.
    code, logs = loose(SURVIVOR_CONTROL)
    assert code == 0 and results(logs)["survivor"] == "alive", logs
    control("the setsid child is alive 1 s after its check ended")


# The check ends, then its setsid child is looked for (the pattern is split so the looking
# shell's own command line does not match).
SURVIVOR_CONTROL = r"""
sh -c "setsid sh -c ': survivor-mark; while :; do sleep 0.1; done' & exit 0"; sleep 1
seen=gone
for p in /proc/[0-9]*; do
  case "$(tr '\0' ' ' < $p/cmdline 2>/dev/null)" in *"surv""ivor-mark"*) seen=alive;; esac
done
echo "RESULT survivor=$seen"
"""
