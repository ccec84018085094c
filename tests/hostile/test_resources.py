"""Memory and disk: bombs meet the memory cgroup, fills meet tmpfs caps, the host disk is flat."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.helpers import attack, control, expect, layer_bytes, loose, results

MiB = 1024 * 1024
# A string doubled 26 times: 512 MiB, and 768 MiB while the last copy is made.
HEAP_BOMB = (
    'awk \'BEGIN{s="xxxxxxxx"; for(i=0;i<26;i++) s = s s; print "RESULT bomb=survived"}\'; '
    "echo RESULT after=yes"
)
CAPS = {"/work": 256 * MiB, "/tmp": 128 * MiB, "/cap": 8 * MiB, "/dev/shm": 32 * MiB}
# The check holds its fill for a second so the host-side disk watch samples it while full.
FILL = (
    "head -c 314572800 /dev/zero > {d}/fill 2>/dev/null; echo RESULT size=$(wc -c < {d}/fill); "
    "sleep 1"
)


def test_heap_bomb_is_oom_killed_and_the_wrapper_survives(
    minimal_image: str, tmp_path: Path
) -> None:
    run = attack(tmp_path, minimal_image, HEAP_BOMB, "--timeout", "60")
    expect(run, "COMPLETED", 0, "OOM kill")
    got = results(run.output)
    assert got == {"after": "yes"}, got
    _code, logs = loose(HEAP_BOMB)
    assert results(logs)["bomb"] == "survived", logs
    control("the 768 MiB bomb completes with no memory limit")


@pytest.mark.parametrize("where", list(CAPS))
def test_fill_of_each_tmpfs_meets_its_cap(minimal_image: str, tmp_path: Path, where: str) -> None:
    run = attack(tmp_path, minimal_image, FILL.format(d=where), "--timeout", "60", disk=True)
    expect(run, "COMPLETED", 0)
    size = int(results(run.output)["size"])
    assert 0 < size <= CAPS[where], size
    _code, logs = loose(FILL.format(d=where), **_loose_fs())
    assert int(results(logs)["size"]) == 314572800, logs
    control("300 MB fits where the tmpfs has no size cap")


def _loose_fs() -> dict[str, object]:
    return {"tmpfs": {"/work": "rw,exec", "/tmp": "rw", "/cap": "rw"}, "shm_size": "1g"}


def test_tmpfs_fill_past_the_memory_limit(minimal_image: str, tmp_path: Path) -> None:
    """Every tmpfs full (their pages count as memory), then a heap bomb on top."""
    fill = "; ".join(f"head -c 314572800 /dev/zero > {d}/fill 2>/dev/null" for d in CAPS)
    cmd = f"{fill}; echo RESULT filled=$(cat {' '.join(f'{d}/fill' for d in CAPS)} | wc -c); "
    cmd += HEAP_BOMB + "; sleep 1"
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "60", disk=True)
    expect(run, "COMPLETED", 0, "OOM kill")
    got = results(run.output)
    assert int(got["filled"]) <= sum(CAPS.values()) < 512 * MiB
    assert got["after"] == "yes" and "bomb" not in got
    _code, logs = loose(cmd, **_loose_fs())
    got = results(logs)
    assert int(got["filled"]) == 4 * 314572800 and got["bomb"] == "survived", got
    control("1.2 GB of tmpfs and the bomb both succeed with no caps")


def test_sparse_2gib_write_costs_nothing(minimal_image: str, tmp_path: Path) -> None:
    cmd = (
        "dd if=/dev/zero of=/work/sparse bs=1 count=1 seek=2147483647 2>/dev/null; "
        "echo RESULT apparent=$(wc -c < /work/sparse) used_k=$(du -k /work/sparse | cut -f1); sleep 1"
    )
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "60", disk=True)
    expect(run, "COMPLETED", 0)
    got = results(run.output)
    assert got["apparent"].split()[0] == "2147483648"
    assert int(got["apparent"].split("used_k=")[1]) < 1024
    control("the probe sees the 2 GiB apparent size (below); the disk check is proven next")


def test_dense_2gib_write_hits_enospc_and_host_disk_is_flat(
    minimal_image: str, tmp_path: Path
) -> None:
    cmd = (
        "head -c 2147483648 /dev/zero > /work/dense; echo RESULT rc=$?; "
        "echo RESULT size=$(wc -c < /work/dense); sleep 1"
    )
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "60", disk=True)
    expect(run, "COMPLETED", 0)
    got = results(run.output)
    assert got["rc"] != "0" and int(got["size"]) <= CAPS["/work"]
    # Positive control for the disk watch itself: 300 MB into a loose container's writable
    # layer shows up as host disk.
    assert layer_bytes("head -c 314572800 /dev/zero > /big; sync") > 200 * MiB
    control("a 300 MB write outside tmpfs shows as 300 MB of host disk")


def test_a_million_small_files_run_out_of_inodes(minimal_image: str, tmp_path: Path) -> None:
    cmd = (
        "mkdir /tmp/m; i=0; while true > /tmp/m/$i; do i=$((i+1)); [ $i -ge 1000000 ] && break; "
        "done 2>/dev/null; echo RESULT files=$i; sleep 1"
    )
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "120", disk=True)
    expect(run, "COMPLETED", 0)
    assert int(results(run.output)["files"]) < 65536
    _code, logs = loose(cmd.replace("1000000", "70000"), tmpfs={"/tmp": "rw,size=256m"})
    assert results(logs)["files"] == "70000", logs
    control("70000 files fit in a tmpfs without nr_inodes")
