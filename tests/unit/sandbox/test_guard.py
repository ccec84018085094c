"""Host-side refusals on the repo, OUT and the report path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.sandbox_helpers import make_repo
from verify_pr.errors import InputRefused
from verify_pr.sandbox import guard


def test_repo_must_exist_and_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InputRefused, match="does not exist"):
        guard.check_repo(str(tmp_path / "nope"), None)
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputRefused, match="not a directory"):
        guard.check_repo(str(tmp_path / "f"), None)


@pytest.mark.parametrize("path", ["/", "/proc", "/run", "/var/run", "/etc", "/dev"])
def test_system_paths_refused(path: str) -> None:
    with pytest.raises(InputRefused):
        guard.check_repo(path, "/nonexistent-home")


def test_home_and_its_ancestors_refused(tmp_path: Path) -> None:
    home = tmp_path / "home" / "me"
    home.mkdir(parents=True)
    for candidate in (home, home.parent, tmp_path):
        with pytest.raises(InputRefused, match="HOME"):
            guard.check_repo(str(candidate), str(home))
    inside = home / "project"
    inside.mkdir()
    assert guard.check_repo(str(inside), str(home)) == inside.resolve()


def test_repo_given_through_a_link_resolves(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert guard.check_repo(str(link), None) == repo.resolve()


def test_out_overlap_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    with pytest.raises(InputRefused, match="overlap"):
        guard.check_out(str(repo / "out"), repo)
    with pytest.raises(InputRefused, match="overlap"):
        guard.check_out(str(tmp_path), repo)
    with pytest.raises(InputRefused, match="overlap"):
        guard.check_out(str(repo), repo)


def test_out_with_foreign_files_refused_and_ours_accepted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "result.json").write_text("{}")
    assert guard.check_out(str(out), repo) == out.resolve()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputRefused, match="not verify-pr's"):
        guard.check_out(str(out), repo)


def test_out_symlink_or_file_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    (tmp_path / "target").mkdir()
    (tmp_path / "l").symlink_to(tmp_path / "target")
    with pytest.raises(InputRefused, match="symlink"):
        guard.check_out(str(tmp_path / "l"), repo)
    (tmp_path / "f").write_text("")
    with pytest.raises(InputRefused, match="not a directory"):
        guard.check_out(str(tmp_path / "f"), repo)


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("abs", "/etc/passwd"),
        ("up", "../../outside"),
        ("deep/a/b/up", "../../../../x"),
        ("dirlink", "/"),
    ],
)
def test_escaping_symlinks_refused(tmp_path: Path, name: str, target: str) -> None:
    repo = make_repo(tmp_path, {"deep/a/b/keep": "x"})
    (repo / name).symlink_to(target)
    with pytest.raises(InputRefused, match="symlink"):
        guard.check_tree(repo)


def test_inner_symlinks_and_chains_accepted(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a/file": "x"})
    (repo / "l1").symlink_to("a/file")
    (repo / "l2").symlink_to("l1")
    (repo / "a" / "back").symlink_to("../l2")
    guard.check_tree(repo)


def test_chain_that_leaves_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a/file": "x"})
    (repo / "hop").symlink_to("a/..")
    (repo / "a" / "out").symlink_to("../../escape")
    with pytest.raises(InputRefused, match="outside"):
        guard.check_tree(repo)


def test_fifo_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    os.mkfifo(repo / "pipe")
    with pytest.raises(InputRefused, match="not a regular file"):
        guard.check_tree(repo)


def test_unreadable_entries_refused_with_a_fix(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"secret": "x"})
    (repo / "secret").chmod(0o600)
    with pytest.raises(InputRefused) as exc:
        guard.check_tree(repo)
    assert "chmod -R o+rX" in exc.value.diagnostics()
    (repo / "secret").chmod(0o644)
    repo.chmod(0o700)
    with pytest.raises(InputRefused):
        guard.check_tree(repo)


def test_odd_names_are_fine(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"with space": "x", "new\nline": "y"})
    weird = os.fsencode(repo) + b"/\xff\xfe-bytes"
    with open(weird, "wb") as handle:
        handle.write(b"z")
    os.chmod(weird, 0o644)
    guard.check_tree(repo)
