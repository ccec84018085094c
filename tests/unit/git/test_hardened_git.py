"""Hardened git with real git and no Docker: ids, exports, modes, paths, and nothing runs."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.git_helpers import arm, commit, git, init_repo
from verify_pr.errors import Cancelled, GitError, InputRefused
from verify_pr.git import archive
from verify_pr.git import hardened as hgit

SHA1 = "a" * 40


@pytest.mark.parametrize(
    "bad",
    [
        "HEAD",
        "main",
        "a" * 39,
        "a" * 41,
        "A" * 40,
        "a" * 63,
        "--output=/tmp/x" + "a" * 30,
        "a" * 40 + "\n",
        " " + "a" * 40,
        "a" * 20 + "..." + "a" * 17,
        "",
    ],
)
def test_commit_ids_other_than_full_hex_are_refused(bad: str) -> None:
    with pytest.raises(InputRefused):
        hgit.check_commit(bad)


@pytest.mark.parametrize("good", ["0" * 40, "f" * 64, "0123456789abcdef" * 4])
def test_full_hex_ids_are_accepted(good: str) -> None:
    assert hgit.check_commit(good) == good


def test_env_is_built_from_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("GIT_DIR", "/elsewhere")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", "touch /tmp/x")
    env = hgit.git_env(tmp_path)
    assert "ghp_secret" not in env.values()
    assert not {"GITHUB_TOKEN", "GIT_DIR", "GIT_EXTERNAL_DIFF", "SSH_AUTH_SOCK"} & set(env)
    assert env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env["GIT_CONFIG_GLOBAL"] == "/dev/null"
    assert env["HOME"] == str(tmp_path)
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["GIT_LFS_SKIP_SMUDGE"] == "1"
    assert "ext" not in env["GIT_ALLOW_PROTOCOL"] and "file" not in env["GIT_ALLOW_PROTOCOL"]
    argv = " ".join(hgit.GIT_OVERRIDES)
    for needle in ("core.hooksPath=/dev/null", "core.fsmonitor=false", "protocol.allow=never"):
        assert needle in argv


def test_export_is_byte_exact_with_sandbox_modes(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "src")
    (repo / "bin").mkdir()
    (repo / "bin" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(repo / "bin" / "run.sh", 0o700)
    os.symlink("bin/run.sh", repo / "link")
    sha = commit(
        repo,
        {
            "pkg/mod.py": "x = 1\n",
            "crlf.txt": b"a\r\nb\n",
            "subst.txt": "$Format:%H$\n",
            "hidden.txt": "still exported\n",
            ".gitattributes": "subst.txt export-subst\nhidden.txt export-ignore\n"
            "crlf.txt text eol=crlf\n",
        },
    )
    with hgit.HardenedGit(repo) as g:
        tree = g.export(sha, tmp_path)
    assert (tree / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert (tree / "subst.txt").read_text() == "$Format:%H$\n"  # not expanded
    assert (tree / "hidden.txt").read_text() == "still exported\n"  # not hidden
    # stored normalised to LF by `git add`; eol=crlf would turn it back on export
    assert (tree / "crlf.txt").read_bytes() == b"a\nb\n"
    assert os.readlink(tree / "link") == "bin/run.sh"
    assert not (tree / ".git").exists()
    assert stat.S_IMODE(os.stat(tree).st_mode) == 0o755
    assert stat.S_IMODE(os.stat(tree / "pkg").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(tree / "pkg" / "mod.py").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tree / "bin" / "run.sh").st_mode) == 0o755


def test_changed_paths_are_nul_separated_bytes(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "src")
    base = commit(repo, {"a.py": "1\n", "old name.py": "x\n" * 20, "gone.py": "g\n"})
    weird = b"new\nline \xff.py"
    (repo / os.fsdecode(weird)).write_text("w\n")
    git(repo, "mv", "old name.py", "renamed.py")
    head = commit(repo, {"a.py": "2\n", "gone.py": None})
    with hgit.HardenedGit(repo) as g:
        paths = g.changed_paths(base, head)
    assert sorted(paths) == sorted([b"a.py", b"gone.py", b"old name.py", b"renamed.py", weird])
    assert hgit.decode_path(weird) == os.fsdecode(weird)


def test_renamed_paths_pair_old_and_new_names(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "src")
    base = commit(repo, {"conftest.py": "x = 1\n" * 20, "keep.py": "k\n"})
    git(repo, "mv", "conftest.py", "plug ins.py")
    head = commit(repo, {"keep.py": "changed\n"})
    with hgit.HardenedGit(repo) as g:
        assert g.renamed_paths(base, head) == [(b"conftest.py", b"plug ins.py")]
        assert g.renamed_paths(base, base) == []


def test_parse_nul_list() -> None:
    assert hgit.parse_nul_list(b"") == []
    assert hgit.parse_nul_list(b"a\0b c\0") == [b"a", b"b c"]
    with pytest.raises(GitError):
        hgit.parse_nul_list(b"a\0b")


def test_unknown_commit_and_non_commit_are_refused(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "src")
    sha = commit(repo, {"a": "1\n"})
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    with hgit.HardenedGit(repo) as g:
        with pytest.raises(GitError, match="not in the repository"):
            g.export("b" * 40)
        with pytest.raises(GitError, match="not a commit"):
            g.export(tree)
        with pytest.raises(InputRefused):
            g.export(sha[:12])
        with pytest.raises(InputRefused, match="sha1"):
            g.export("c" * 64)


def test_sha256_repository(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "src", object_format="sha256")
    sha = commit(repo, {"a.py": "1\n"})
    assert len(sha) == 64
    with hgit.HardenedGit(repo, object_format="sha256") as g:
        assert (g.export(sha, tmp_path) / "a.py").read_text() == "1\n"


def test_linked_worktree_and_bare_repo(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "src")
    sha = commit(repo, {"a.py": "1\n"})
    git(repo, "worktree", "add", "--quiet", "--detach", str(tmp_path / "wt"), sha)
    git(tmp_path, "clone", "--quiet", "--bare", str(repo), str(tmp_path / "bare.git"))
    for where in (tmp_path / "wt", tmp_path / "bare.git"):
        with hgit.HardenedGit(where) as g:
            assert (g.export(sha, tmp_path) / "a.py").read_text() == "1\n"


def test_not_a_repository_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputRefused):
        hgit.HardenedGit(tmp_path)
    with pytest.raises(InputRefused):
        hgit.HardenedGit(tmp_path / "missing")


def test_repo_config_hooks_and_attributes_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    repo = init_repo(tmp_path / "src")
    attrs = "* filter=evil diff=evil\n*.txt filter=lfs diff=lfs merge=lfs\n"
    base = commit(repo, {".gitattributes": attrs, "a.py": "1\n", "b.txt": "x\n"})
    head = commit(repo, {"a.py": "2\n", "b.txt": "y\n"})
    arm(repo, marker)

    # The fixture is armed: plain git in the source runs the textconv/external diff.
    with contextlib.suppress(subprocess.CalledProcessError):  # the evil filter "fails"
        git(repo, "-c", "core.hooksPath=", "diff", base, head)
    assert marker.exists(), "fixture not armed: plain git did not run the repo's commands"
    marker.unlink()

    with hgit.HardenedGit(repo) as g:
        assert sorted(g.changed_paths(base, head)) == [b"a.py", b"b.txt"]
        tree = g.export(head, tmp_path)
        g.export(base, tmp_path)
    assert (tree / "a.py").read_text() == "2\n"
    assert (tree / "b.txt").read_text() == "y\n"
    assert not marker.exists()


def test_ext_and_file_protocols_are_refused(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    repo = init_repo(tmp_path / "src")
    commit(repo, {"a": "1\n"})
    with hgit.HardenedGit(repo) as g:
        for url in (f"ext::sh -c touch% {marker}", f"file://{repo}", str(repo)):
            with pytest.raises(GitError):
                g._run_raw(["ls-remote", url])
    assert not marker.exists()


def _tar(tmp_path: Path, *members: tarfile.TarInfo) -> Path:
    path = tmp_path / "evil.tar"
    with tarfile.open(path, "w") as tar:
        for member in members:
            data = b"x" if member.isfile() else None
            if data is not None:
                member.size = len(data)
            tar.addfile(member, io.BytesIO(data) if data is not None else None)
    return path


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    info.mode = 0o644
    return info


@pytest.mark.parametrize(
    "member",
    [
        _member("/etc/evil"),
        _member("../evil"),
        _member("a/../../evil"),
        _member("up", tarfile.SYMTYPE, "../../etc/passwd"),
        _member("a/up", tarfile.SYMTYPE, "../.."),
        _member("abs", tarfile.SYMTYPE, "/etc/passwd"),
        _member("hard", tarfile.LNKTYPE, "/etc/passwd"),
        _member("dev", tarfile.CHRTYPE),
        _member("blk", tarfile.BLKTYPE),
        _member("fifo", tarfile.FIFOTYPE),
    ],
    ids=lambda m: m.name,
)
def test_hostile_archive_entries_are_refused(tmp_path: Path, member: tarfile.TarInfo) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(GitError):
        archive.extract_tar(_tar(tmp_path, member), dest)
    assert not (tmp_path / "evil").exists()


def test_setuid_and_world_write_bits_are_dropped(tmp_path: Path) -> None:
    member = _member("tool")
    member.mode = 0o6777
    dest = tmp_path / "dest"
    dest.mkdir()
    archive.extract_tar(_tar(tmp_path, member), dest)
    assert stat.S_IMODE(os.stat(dest / "tool").st_mode) == 0o755


def _forked(tmp_path: Path, attrs: str = "") -> tuple[Path, str, str, str]:
    """A fork point, a PR commit and a base tip that moved on; all changes touch b.txt."""
    repo = init_repo(tmp_path / "src")
    fork = commit(repo, {".gitattributes": attrs, "a.py": "1\n2\n3\n", "b.txt": "x\ny\nz\n"})
    pr = commit(repo, {"a.py": "1\nPR\n3\n", "b.txt": "PR\ny\nz\n"})
    git(repo, "checkout", "--quiet", fork)
    tip = commit(repo, {"c.py": "new\n", "b.txt": "x\ny\nBASE\n"})
    return repo, fork, pr, tip


def test_merge_tree_merges_head_into_base_without_running_anything(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    repo, fork, pr, tip = _forked(tmp_path, "* merge=evil filter=evil\n")
    arm(repo, marker)
    git(repo, "config", "merge.evil.driver", f"sh -c 'echo ran >> {marker}; exit 1'")
    # armed: plain git in the source runs the merge driver
    with contextlib.suppress(subprocess.CalledProcessError):
        git(repo, "-c", "core.hooksPath=", "merge-tree", "--write-tree", tip, pr)
    assert marker.exists(), "fixture not armed: plain git did not run the merge driver"
    marker.unlink()

    with hgit.HardenedGit(repo) as g:
        assert g.merge_bases(tip, pr) == [fork]
        assert not g.is_ancestor(pr, tip) and g.is_ancestor(fork, tip)
        merged = g.merge_tree(tip, pr)
        assert merged.conflicts == ()
        tree = g.export_tree(merged.tree, tmp_path)
        assert sorted(g.changed_paths(fork, pr)) == [b"a.py", b"b.txt"]
        with pytest.raises(GitError, match="not a tree"):
            g.export_tree(pr, tmp_path)
    assert (tree / "a.py").read_text() == "1\nPR\n3\n"
    assert (tree / "b.txt").read_text() == "PR\ny\nBASE\n"  # both sides, git's text merge
    assert (tree / "c.py").read_text() == "new\n"
    assert not marker.exists()


def test_merge_tree_names_conflicting_paths(tmp_path: Path) -> None:
    repo, fork, pr, _tip = _forked(tmp_path)
    git(repo, "checkout", "--quiet", fork)
    clash = commit(repo, {"b.txt": "BASE\ny\nz\n"})
    with hgit.HardenedGit(repo) as g:
        assert g.merge_tree(clash, pr).conflicts == (b"b.txt",)


def test_unrelated_histories_have_no_merge_base(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "src")
    one = commit(repo, {"a": "1\n"})
    git(repo, "checkout", "--quiet", "--orphan", "other")
    two = commit(repo, {"b": "2\n"})
    with hgit.HardenedGit(repo) as g:
        assert g.merge_bases(one, two) == []


def _cancelled_at(monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """The signal lands while git runs ``command`` (``sandbox/cancel.py`` raises it there)."""
    real = hgit.HardenedGit._run_raw

    def run_raw(self: hgit.HardenedGit, args: list[str], *rest: Any, **kw: Any) -> Any:
        if args[0] == command:
            raise Cancelled("the run was cancelled by SIGTERM")
        return real(self, args, *rest, **kw)

    monkeypatch.setattr(hgit.HardenedGit, "_run_raw", run_raw)


@pytest.mark.parametrize("command", ["init", "archive"])
def test_a_cancel_inside_git_leaves_no_temp_tree(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
) -> None:
    """Issue 37.4: the shadow repository and an export in progress are removed whatever ends
    them (a cancel raises BaseException); a finished export, the control, stays."""
    repo = init_repo(tmp_path / "src")
    sha = commit(repo, {"a.py": "x = 1\n"})
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with hgit.HardenedGit(repo) as g:
        kept = g.export(sha)
    assert [p.name.split("-")[2] for p in temp.iterdir()] == ["commit"]  # the control
    _cancelled_at(monkeypatch, command)
    with pytest.raises(Cancelled), hgit.HardenedGit(repo) as g:
        g.export(sha)
    assert list(temp.iterdir()) == [kept]
