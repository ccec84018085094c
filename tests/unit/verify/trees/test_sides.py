"""Every tree of a compare is settled the same way (``verify/trees/sides.py``): one time, normal
modes, a random path of one length, entries created in sorted order."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from verify_pr.verify.trees import sides


def _tree(root: Path, names: list[str]) -> Path:
    """Files created in the order given, with mixed modes and times."""
    (root / "pkg").mkdir(parents=True)
    for index, name in enumerate(names):
        path = root / "pkg" / name
        path.write_text(name)
        os.utime(path, (1_500_000_000 + index, 1_500_000_000 + index))
    os.chmod(root / "pkg" / names[0], 0o775)  # noqa: S103 (an executable file)
    (root / "link").symlink_to("pkg")
    return root


def _entries(root: Path) -> list[Path]:
    found = [root]
    for top, folders, files in os.walk(root):
        found += [Path(top) / n for n in (*folders, *files)]
    return found


def test_a_settled_tree_has_one_time_and_normal_modes(tmp_path: Path) -> None:
    raw = _tree(tmp_path / "raw", ["b.py", "a.py"])
    assert len({os.lstat(p).st_mtime_ns for p in _entries(raw)}) > 1  # control
    settled = sides.settle(raw, tmp_path)
    assert not raw.exists()
    entries = _entries(settled)
    assert {os.lstat(p).st_mtime for p in entries} == {sides.FIXED_TIME}
    modes = {p.name: stat.S_IMODE(os.lstat(p).st_mode) for p in entries if not p.is_symlink()}
    assert modes == {"tree": 0o755, "pkg": 0o755, "a.py": 0o644, "b.py": 0o755}
    assert os.readlink(settled / "link") == "pkg"
    assert (settled / "pkg" / "a.py").read_text() == "a.py"


def test_the_path_says_nothing_of_the_side(tmp_path: Path) -> None:
    one = sides.settle(_tree(tmp_path / "before", ["a.py"]), tmp_path)
    two = sides.settle(_tree(tmp_path / "head", ["a.py"]), tmp_path)
    assert one != two and len(str(one)) == len(str(two))
    assert "before" not in str(one) and "head" not in str(two)


def test_the_listing_order_follows_the_names_not_the_history(tmp_path: Path) -> None:
    """On tmpfs (creation order decides the listing) two trees of the same names made in
    different orders list differently (the control) and the same once settled."""
    shm = Path("/dev/shm")  # a tmpfs, where creation order shows
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("no writable /dev/shm")

    with tempfile.TemporaryDirectory(dir=shm) as scratch:
        root = Path(scratch)
        one = _tree(root / "one", ["a.py", "b.py", "c.py"])
        two = _tree(root / "two", ["c.py", "a.py", "b.py"])
        if os.listdir(one / "pkg") == os.listdir(two / "pkg"):
            pytest.skip("this /dev/shm does not list by creation order")
        settled_one = sides.settle(one, root)
        settled_two = sides.settle(two, root)
        assert os.listdir(settled_one / "pkg") == os.listdir(settled_two / "pkg")


def test_settle_all_settles_each_tree_once(tmp_path: Path) -> None:
    base = _tree(tmp_path / "base", ["a.py"])
    after = _tree(tmp_path / "after", ["a.py"])
    settled = sides.settle_all([base, base, after], tmp_path)
    assert set(settled) == {base, after} and len(set(settled.values())) == 2
