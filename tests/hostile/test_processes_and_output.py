"""Processes (fork, thread and zombie farms) and output (floods, binary, bypassing the cap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.helpers import attack, control, expect, loose, results

COUNT = "set -- /proc/[0-9]*; echo RESULT procs=$#"
# The spawning subshell dies when fork fails (ash exits 2 on "can't fork"); counting is builtin.
SPAWN = "( i=0; while [ $i -lt 600 ]; do sleep 30 & i=$((i+1)); done ) 2>/dev/null; " + COUNT


def test_fork_bomb_meets_the_pids_limit(minimal_image: str, tmp_path: Path) -> None:
    cmd = "b() { b | b & }; b 2>/dev/null; sleep 2 2>/dev/null; " + COUNT + "; exit 0"
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "30")
    expect(run, ("COMPLETED", "ERROR"), "any")
    got = results(run.output)
    if "procs" in got:
        assert int(got["procs"]) <= 256
    _spawn_control()


def test_process_farm_meets_the_pids_limit(minimal_image: str, tmp_path: Path) -> None:
    run = attack(tmp_path, minimal_image, SPAWN + "; exit 0", "--timeout", "30")
    expect(run, "COMPLETED", 0)
    assert int(results(run.output)["procs"]) <= 256
    _spawn_control()


def _spawn_control() -> None:
    _code, logs = loose(SPAWN, pids_limit=2000)
    assert int(results(logs)["procs"]) > 600, logs
    control("600 processes start under a 2000 pids limit")


THREADS = (
    "python3 -c 'import threading, time\n"
    "n = 0\n"
    "try:\n"
    "    while n < 600:\n"
    "        threading.Thread(target=time.sleep, args=(30,), daemon=True).start(); n += 1\n"
    "except RuntimeError:\n"
    "    pass\n"
    'print("RESULT threads=%d" % n, flush=True)\n'
    "import os; os._exit(0)'"
)


def test_thread_bomb_meets_the_pids_limit(python_image: str, tmp_path: Path) -> None:
    run = attack(tmp_path, python_image, THREADS, "--timeout", "60")
    expect(run, "COMPLETED", 0)
    assert int(results(run.output)["threads"]) < 256
    _code, logs = loose(THREADS, python_image, pids_limit=2000)
    assert results(logs)["threads"] == "600", logs
    control("600 threads start under a 2000 pids limit")


def test_zombie_farm_does_not_hold_the_sweep(minimal_image: str, tmp_path: Path) -> None:
    cmd = (
        # 150 children that exit after their parent has become a `sleep` that never reaps.
        "sh -c 'i=0; while [ $i -lt 150 ]; do sleep 1 & i=$((i+1)); done; exec sleep 30' "
        "& sleep 2.5; z=0; for p in /proc/[0-9]*; do read -r l < $p/stat; "
        'case $l in *") Z "*) z=$((z+1));; esac; done 2>/dev/null; echo RESULT zombies=$z; exit 0'
    )
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "30")
    expect(run, "COMPLETED", 0)
    assert int(results(run.output)["zombies"]) >= 100  # the farm was there (the probe works)
    assert run.elapsed_s < 30
    control("the probe counts 100+ zombies inside the sandbox itself")


FLOODS = [
    pytest.param("yes", "TIMEOUT", 137, b"y\n", id="yes-stdout"),
    pytest.param("yes >&2", "TIMEOUT", 137, b"y\n", id="yes-stderr"),
    pytest.param(
        "head -c 5000000 /dev/zero | tr '\\0' x; exit 0", "COMPLETED", 0, b"x", id="no-newline"
    ),
    pytest.param(
        "yes bypass > /proc/1/fd/1", "TIMEOUT", 137, b"bypass\n", id="bypass-to-pid1-stdout"
    ),
]


@pytest.mark.parametrize(("cmd", "status", "code", "unit"), FLOODS)
def test_output_flood_is_capped(
    minimal_image: str, tmp_path: Path, cmd: str, status: str, code: int, unit: bytes
) -> None:
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "2", "--max-output", "10000")
    expect(run, status, code, truncated=True)
    assert len(run.output) == 10000
    assert run.output == (unit * 10000)[:10000]
    _size, logs = loose(
        f"( {cmd} ) 2>&1 | head -c 200000 | wc -c".replace("/proc/1/fd/1", "/dev/stdout")
    )
    assert logs.strip() == b"200000", logs
    control("the same flood gives 200000+ bytes without the cap")


def test_nul_and_invalid_utf8_are_kept_as_bytes(minimal_image: str, tmp_path: Path) -> None:
    cmd = "printf 'a\\000b\\377\\376c\\300\\n'"
    run = attack(tmp_path, minimal_image, cmd)
    expect(run, "COMPLETED", 0)
    assert run.output == b"a\x00b\xff\xfec\xc0\n"
    _code, logs = loose(cmd + " | od -An -tx1")
    assert logs.split() == [b"61", b"00", b"62", b"ff", b"fe", b"63", b"c0", b"0a"], logs
    control("the probe prints those exact bytes")
