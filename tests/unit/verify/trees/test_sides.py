"""Every tree of a compare is settled the same way (``verify/trees/sides.py``): one time, normal
modes, a random path of one length, entries created in sorted order."""

from __future__ import annotations

import os
import random
import shutil
import stat
import tempfile
import time
from pathlib import Path

import pytest

from verify_pr.verify.trees import overlay, sides
from verify_pr.verify.trees.export import Context, Exported


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


def _random_tree(root: Path, rng: random.Random, names: list[str]) -> None:
    """Files (some executable), links and folders at random paths over a few names."""
    root.mkdir()
    for _ in range(40):
        parts = [rng.choice(names) for _ in range(rng.randint(1, 3))]
        path = root.joinpath(*parts)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            kind = rng.random()
            if kind < 0.15:
                path.symlink_to(rng.choice(names))
            elif kind < 0.25:
                path.mkdir()
            else:
                path.write_text(f"{root.name} {'/'.join(parts)} {rng.random()}\n")
                os.chmod(path, 0o755 if rng.random() < 0.2 else 0o644)
        except OSError:  # a file or a link loop where a folder was wanted
            continue


def _changed(rng: random.Random, names: list[str], k: int) -> list[str]:
    return sorted({"/".join(rng.choice(names) for _ in range(rng.randint(1, 3))) for _ in range(k)})


def _listing(root: Path) -> dict[str, tuple[str, object]]:
    """Every entry below ``root``: its kind and content, link target or mode."""
    found: dict[str, tuple[str, object]] = {}
    for top, folders, files in os.walk(root):
        for name in (*folders, *files):
            path = Path(top) / name
            rel = str(path.relative_to(root))
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(st.st_mode):
                found[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                found[rel] = ("file", (path.read_text(), stat.S_IMODE(st.st_mode)))
    return found


def _oracle(base: Path, after: Path, shared: list[str], from_base: list[str], out: Path) -> Path:
    """The trees as the old build made them on disk: copy, overlay, settle."""
    shutil.copytree(base, out / "base", symlinks=True)
    shutil.copytree(after, out / "after", symlinks=True)
    before = out / "before"
    shutil.copytree(base, before, symlinks=True)
    overlay.overlay_paths(out / "after", before, shared)
    overlay.overlay_harness(out / "base", before, from_base)
    overlay.overlay_harness(out / "base", out / "after", from_base)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_build_writes_the_trees_the_overlays_made(tmp_path: Path, seed: int) -> None:
    """Before (base with after's shared paths, base's harness paths) and after (with base's
    harness paths) as copying and overlaying on disk made them, over random trees where files,
    links and folders replace each other, with normal modes and one time."""
    rng = random.Random(seed)
    names = ["a", "b", "c.py", "d"]
    exports = tmp_path / "exports"
    exports.mkdir()
    _random_tree(exports / "base", rng, names)
    _random_tree(exports / "after", rng, names)
    shared, from_base = _changed(rng, names, 8), _changed(rng, names, 3)
    expected = _oracle(exports / "base", exports / "after", shared, from_base, tmp_path / "old")
    context = Context("a" * 40, "b" * 40)
    trees = Exported(exports / "base", exports / "after", context, [])
    work = tmp_path / "work"
    work.mkdir()
    built = sides.build(trees, work, shared, from_base)
    for got, want in ((built.before, "before"), (built.after, "after"), (built.base, "base")):
        new = _listing(got)
        assert new == _listing(expected / want), want
        times = {os.lstat(got / k).st_mtime for k in new} | {os.lstat(got).st_mtime}
        assert times == {sides.FIXED_TIME}, want
    assert not (exports / "after").exists() and not (exports / "base").exists()


def test_build_without_shared_paths_runs_base_as_before(tmp_path: Path) -> None:
    base = _tree(tmp_path / "base", ["a.py"])
    after = _tree(tmp_path / "after", ["b.py"])
    work = tmp_path / "work"
    work.mkdir()
    built = sides.build(Exported(base, after, Context("a" * 40, "b" * 40), []), work, [], [])
    assert built.base == built.before != built.after
    assert sorted(os.listdir(built.before / "pkg")) == ["a.py"]


def _ctimes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): os.lstat(p).st_ctime_ns for p in _entries(root)}


def test_before_and_head_are_written_at_once(tmp_path: Path) -> None:
    """Each entry of before is made right beside after's: the change times (which no call can
    set back) follow one order on both trees and their spans overlap. Control: the same trees
    written one after the other are apart by the pause between them."""
    names = [f"f{i:03}.py" for i in range(200)]
    base, after = _tree(tmp_path / "base", names), _tree(tmp_path / "after", names)
    shared = [f"pkg/{n}" for n in names[::2]]
    work = tmp_path / "work"
    work.mkdir()
    built = sides.build(Exported(base, after, Context("a" * 40, "b" * 40), []), work, shared, [])
    one, two = _ctimes(built.before), _ctimes(built.after)
    assert set(one) == set(two)
    in_order = sorted(one, key=lambda k: (one[k], k))
    assert [two[k] for k in in_order] == sorted(two[k] for k in in_order)
    assert min(two.values()) <= max(one.values()) and min(one.values()) <= max(two.values())
    # control: one tree settled, a pause longer than the kernel's clock step, then the other
    first = sides.settle(built.before, tmp_path, keep=True)
    time.sleep(0.05)
    second = sides.settle(built.after, tmp_path, keep=True)
    assert min(_ctimes(second).values()) > max(_ctimes(first).values())


def test_moving_sets_both_sides_times_again(tmp_path: Path) -> None:
    names = ["a.py", "b.py"]
    base, after = _tree(tmp_path / "base", names), _tree(tmp_path / "after", names)
    work = tmp_path / "work"
    work.mkdir()
    built = sides.build(
        Exported(base, after, Context("a" * 40, "b" * 40), []), work, ["pkg/a.py"], []
    )
    time.sleep(0.05)
    moved = built.moving(["pkg/b.py"], [], work)
    assert not built.before.exists() and moved.after == built.after
    assert (moved.before / "pkg" / "b.py").read_text() == (built.after / "pkg" / "b.py").read_text()
    one, two = _ctimes(moved.before), _ctimes(moved.after)
    assert min(two.values()) <= max(one.values()) and min(one.values()) <= max(two.values())
