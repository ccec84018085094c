"""``sandbox.tree_files``, the one reader of the PR's trees: links are entries, never followed;
a FIFO never blocks; every cap is the caller's. Each hostile entry has its honest twin."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verify_pr.sandbox import tree_files


def _tree(root: Path) -> Path:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("a\n")
    (root / "pkg" / "sub" / "b.py").write_text("b\n")
    (root / "outside").mkdir()
    (root / "outside" / "secret").write_text("s\n")
    tree = root / "pkg"
    os.symlink("../outside", tree / "out")  # a link to a folder out of the tree
    os.symlink("sub/b.py", tree / "to_b")
    return tree


def test_the_walk_lists_links_as_entries_and_never_enters_them(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    folders = list(tree_files.walk(tree, 100))
    assert [f.rel for f in folders] == ["", "sub"]  # "out" is a link: not entered
    top = {e.rel: e for e in folders[0].entries}
    assert [e.name for e in folders[0].entries] == sorted(top)
    assert top["out"].is_link and not top["out"].is_dir
    assert top["sub"].is_dir and top["a.py"].is_file
    assert [e.rel for e in folders[1].entries] == ["sub/b.py"]


def test_the_walk_enters_what_the_caller_allows(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    folders = list(tree_files.walk(tree, 100, lambda e: e.name != "sub"))
    assert [f.rel for f in folders] == [""]
    assert "sub" in {e.name for e in folders[0].entries}  # listed, not entered


def test_the_walk_stops_past_its_cap(tmp_path: Path) -> None:
    tree = _tree(tmp_path)  # 5 entries in all: a.py, out, sub, to_b, sub/b.py
    assert sum(len(f.entries) for f in tree_files.walk(tree, 5)) == 5
    with pytest.raises(tree_files.TooManyEntries):
        list(tree_files.walk(tree, 4))


def test_reads_never_follow_a_link_and_never_wait_on_a_fifo(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    os.mkfifo(tree / "fifo")
    for name in ("to_b", "fifo", "sub", "missing"):
        assert tree_files.read_capped(tree / name, 10) is None, name
        assert tree_files.read_whole(tree / name, 10) is None, name
    # honest twin: the file the link points at reads
    assert tree_files.read_capped(tree / "sub" / "b.py", 10) == (b"b\n", False)
    assert tree_files.read_whole(tree / "sub" / "b.py", 10) == b"b\n"


def test_the_caps_are_the_callers(tmp_path: Path) -> None:
    (tmp_path / "big").write_bytes(b"x" * 100)
    assert tree_files.read_capped(tmp_path / "big", 10) == (b"x" * 10, True)
    assert tree_files.read_capped(tmp_path / "big", 100) == (b"x" * 100, False)
    assert tree_files.read_whole(tmp_path / "big", 99) is None
    assert tree_files.read_whole(tmp_path / "big", 100) == b"x" * 100


def test_a_nested_read_takes_no_folder_link(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    assert tree_files.read_nested(tree, "out/secret", 10) is None
    assert tree_files.read_nested(tree, "sub/b.py", 10) == b"b\n"
    with pytest.raises(ValueError, match="not a repo-relative path"):
        tree_files.read_nested(tree, "../outside/secret", 10)


def test_exists_and_plain_files_by_lstat(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    os.symlink("nowhere", tree / "broken")
    assert tree_files.exists(tree, "broken") and tree_files.exists(tree, "sub/b.py")
    assert not tree_files.exists(tree, "missing") and not tree_files.exists(tree, "a.py/x")
    assert tree_files.is_plain_file(tree, "sub/b.py")
    assert not tree_files.is_plain_file(tree, "to_b")  # a link to that same file
    assert not tree_files.is_plain_file(tree, "out/secret")  # through a folder link


@pytest.mark.parametrize(
    ("path", "landed"),
    [
        ("to_b", ("sub/b.py", 1)),  # honest: a link inside the tree
        ("sub/b.py", ("sub/b.py", 0)),  # no link on the way
        ("out/secret", None),  # through a link that leaves the tree
        ("loop", None),
        ("abs", None),
        ("missing/x", None),
    ],
)
def test_links_are_resolved_by_their_text_inside_the_tree(
    tmp_path: Path, path: str, landed: tuple[str, int] | None
) -> None:
    tree = _tree(tmp_path)
    os.symlink("loop", tree / "loop")
    os.symlink("/etc/passwd", tree / "abs")
    assert tree_files.resolve(path, tree_files.link_in(tree)) == landed
    links = {"to_b": "sub/b.py", "out": "../outside", "loop": "loop", "abs": "/etc/passwd"}
    # the same answers from a walk's links (nothing is looked up on disk); a path that is
    # not there is simply not a link
    by_text = tree_files.resolve(path, links.get)
    assert by_text == (landed if path != "missing/x" else ("missing/x", 0))
