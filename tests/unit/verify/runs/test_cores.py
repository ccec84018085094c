"""The cores a job really has: affinity within the cgroup's CPU quota, read from a fake tree."""

from __future__ import annotations

from pathlib import Path

from verify_pr.verify.runs.cores import CgroupPaths, quota, usable


def _tree(tmp_path: Path, cgroup: str, files: dict[str, str]) -> CgroupPaths:
    tmp_path.mkdir(parents=True, exist_ok=True)
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text(cgroup)
    root = tmp_path / "sys-fs-cgroup"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return CgroupPaths(proc, root)


def test_v2_quota_limits_the_cores(tmp_path: Path) -> None:
    paths = _tree(tmp_path, "0::/runner/job\n", {"runner/job/cpu.max": "200000 100000\n"})
    assert quota(paths) == 2.0
    assert usable(paths, cores=8) == 2
    assert usable(paths, cores=1) == 1  # the affinity is smaller: it stands


def test_v2_no_quota_is_the_affinity(tmp_path: Path) -> None:
    paths = _tree(tmp_path, "0::/job\n", {"job/cpu.max": "max 100000\n", "cpu.max": "max 100000"})
    assert quota(paths) is None
    assert usable(paths, cores=4) == 4


def test_v2_a_parent_quota_counts_and_the_smallest_wins(tmp_path: Path) -> None:
    files = {"a/cpu.max": "150000 100000\n", "a/b/cpu.max": "400000 100000\n"}
    paths = _tree(tmp_path, "0::/a/b\n", files)
    assert quota(paths) == 1.5
    assert usable(paths, cores=4) == 1  # 1.5 cores: room for one sandbox at a time


def test_a_fraction_of_a_core_still_runs_one(tmp_path: Path) -> None:
    paths = _tree(tmp_path, "0::/j\n", {"j/cpu.max": "50000 100000\n"})
    assert usable(paths, cores=4) == 1


def test_v1_cfs_quota(tmp_path: Path) -> None:
    files = {
        "cpu,cpuacct/docker/x/cpu.cfs_quota_us": "300000\n",
        "cpu,cpuacct/docker/x/cpu.cfs_period_us": "100000\n",
        "cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
        "cpu,cpuacct/cpu.cfs_period_us": "100000\n",
    }
    paths = _tree(tmp_path, "4:memory:/docker/x\n3:cpu,cpuacct:/docker/x\n", files)
    assert quota(paths) == 3.0
    assert usable(paths, cores=16) == 3


def test_unreadable_or_malformed_is_no_quota(tmp_path: Path) -> None:
    assert quota(CgroupPaths(tmp_path / "none", tmp_path)) is None
    bad = _tree(tmp_path, "0::/j\n", {"j/cpu.max": "lots 100000\n"})
    assert quota(bad) is None
    escape = _tree(tmp_path / "e", "0::/../../etc\n", {})
    assert quota(escape) is None
    assert usable(bad, cores=0) == 1


def test_this_machine_gives_at_least_one() -> None:
    assert usable() >= 1
