"""Names and short ids resolved by the hardened git, and the work tree's uncommitted changes read
through it: real git repositories, and nothing of the source's config or hooks runs."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest

from tests.git_helpers import arm, commit, git, init_repo
from verify_pr.errors import InputRefused
from verify_pr.git import hardened as hgit
from verify_pr.git import source as src


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    repo = init_repo(tmp_path / "src")
    base = commit(repo, {"a.py": "1\n"}, "base")
    git(repo, "tag", "v1.0")
    git(repo, "tag", "-a", "-m", "annotated", "v1.0-a")
    git(repo, "checkout", "--quiet", "-b", "fix")
    head = commit(repo, {"a.py": "2\n"}, "fix")
    git(repo, "checkout", "--quiet", "main")
    return repo, base, head


def test_branches_tags_short_and_full_ids_resolve(repo: tuple[Path, str, str]) -> None:
    path, base, head = repo
    with hgit.HardenedGit(path) as g:
        assert g.resolve("main") == base
        assert g.resolve("fix") == head
        assert g.resolve("refs/heads/fix") == head
        assert g.resolve("v1.0") == base
        assert g.resolve("v1.0-a") == base  # an annotated tag peels to its commit
        assert g.resolve("HEAD") == base
        assert g.resolve("fix~1") == base
        assert g.resolve(head[:7]) == head
        assert g.resolve(head) == head


def test_packed_refs_and_a_linked_worktree(repo: tuple[Path, str, str], tmp_path: Path) -> None:
    path, base, head = repo
    git(path, "pack-refs", "--all")
    assert not (path / ".git" / "refs" / "heads" / "fix").exists()
    git(path, "worktree", "add", "--quiet", str(tmp_path / "wt"), "fix")
    with hgit.HardenedGit(tmp_path / "wt") as g:
        assert g.resolve("fix") == head
        assert g.resolve("v1.0-a") == base
        assert g.resolve("HEAD") == head  # the worktree's own HEAD


@pytest.mark.parametrize(
    "bad",
    [
        "-main",
        "--output=/tmp/x",
        "main..fix",
        "main@{1}",
        "main:a.py",
        ":/fix",
        "ma in",
        "main\n",
        "",
        "x" * 300,
    ],
)
def test_options_ranges_reflogs_and_paths_are_refused(
    bad: str, repo: tuple[Path, str, str]
) -> None:
    with hgit.HardenedGit(repo[0]) as g, pytest.raises(InputRefused, match="--base must be"):
        g.resolve(bad, "--base")


def test_unknown_names_and_non_commits_are_refused(repo: tuple[Path, str, str]) -> None:
    path, _, _ = repo
    blob = git(path, "rev-parse", "HEAD:a.py").strip()
    with hgit.HardenedGit(path) as g:
        with pytest.raises(InputRefused, match="'nope' names no commit"):
            g.resolve("nope", "--head")
        with pytest.raises(InputRefused, match="names no commit"):
            g.resolve(blob[:10], "--head")


def test_an_ambiguous_name_is_refused(repo: tuple[Path, str, str]) -> None:
    path, base, head = repo
    git(path, "tag", "fix", base)  # a tag and a branch both called fix
    git(path, "branch", head[:6], base)  # a branch named like head's short id
    with hgit.HardenedGit(path) as g:
        with pytest.raises(InputRefused, match="'fix' is ambiguous"):
            g.resolve("fix", "--head")
        with pytest.raises(InputRefused, match="is ambiguous"):
            g.resolve(head[:6], "--head")
        assert g.resolve("refs/heads/fix") == head  # positive control: named in full


def _many_commits(path: Path, n: int) -> dict[str, list[tuple[str, str]]]:
    """``n`` commits (a blob, a tree and a commit each) in one fast-import; objects by their
    first four hex digits, as (type, id)."""
    stream = []
    for i in range(n):
        stream.append(f"blob\nmark :{i + 1}\ndata {len(str(i)) + 1}\n{i}\n")
        stream.append(
            f"commit refs/heads/main\ncommitter f <f@x.invalid> {1700000000 + i} +0000\n"
            f"data {len(str(i)) + 2}\nc{i}\nM 100644 :{i + 1} a.txt\n"
        )
    subprocess.run(
        ["git", "fast-import", "--quiet"],
        input="".join(stream).encode(),
        cwd=path,
        check=True,
        capture_output=True,
    )
    listed = git(
        path, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)"
    )
    by_prefix: dict[str, list[tuple[str, str]]] = {}
    for line in listed.splitlines():
        kind, sha = line.split()
        by_prefix.setdefault(sha[:4], []).append((kind, sha))
    return by_prefix


def test_an_ambiguous_short_id_is_refused(tmp_path: Path) -> None:
    """A prefix of one commit and another object (git itself would pick the commit), and a
    prefix of two commits: both refused."""
    path = init_repo(tmp_path / "src")
    by_prefix = _many_commits(path, 1500)
    kinds = {p: sorted(k for k, _ in objs) for p, objs in by_prefix.items()}
    one_commit = next(p for p, k in kinds.items() if k.count("commit") == 1 and len(k) > 1)
    two_commits = next(p for p, k in kinds.items() if k.count("commit") == 2)
    with hgit.HardenedGit(path) as g:
        with pytest.raises(InputRefused, match="objects start with it"):
            g.resolve(one_commit, "--base")
        with pytest.raises(InputRefused, match="ambiguous"):
            g.resolve(two_commits, "--base")
        (sha,) = [s for k, s in by_prefix[one_commit] if k == "commit"]
        assert g.resolve(sha[:12]) == sha  # positive control: more digits


def test_resolving_runs_nothing_of_the_source(repo: tuple[Path, str, str], tmp_path: Path) -> None:
    path, base, head = repo
    marker = tmp_path / "MARKER"
    arm(path, marker)
    git(path, "config", "alias.rev-parse", f"!touch {marker}")
    (path / "a.py").write_text("dirty\n")  # status compares it: the evil clean filter must not run
    # The fixture is armed: plain git status in the source runs its fsmonitor and filter.
    with contextlib.suppress(subprocess.CalledProcessError):
        git(path, "-c", "core.hooksPath=", "status", "--porcelain")
    assert marker.exists(), "fixture not armed: plain git status ran nothing"
    marker.unlink()
    with hgit.HardenedGit(path) as g:
        assert g.resolve("fix") == head
        assert g.resolve(base[:8]) == base
        assert sorted(g.uncommitted() or []) == [b" M a.py", b"?? extra.config"]
    assert not marker.exists()


def test_replace_refs_are_not_copied(repo: tuple[Path, str, str]) -> None:
    path, base, head = repo
    git(path, "replace", head, base)  # plain git in the source now reads fix as base
    assert git(path, "rev-parse", "fix^{tree}") == git(path, "rev-parse", f"{base}^{{tree}}")
    with hgit.HardenedGit(path) as g:
        assert g.resolve("fix") == head
        tree = g.export(g.resolve("fix"))
    assert (tree / "a.py").read_text() == "2\n"


def test_uncommitted_lists_modified_staged_and_untracked(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    path, _, _ = repo
    with hgit.HardenedGit(path) as g:
        assert g.uncommitted() == []  # positive control: a clean work tree
    (path / "a.py").write_text("edited\n")
    (path / "new.py").write_text("x\n")
    (path / "staged.py").write_text("s\n")
    git(path, "add", "staged.py")
    (path / ".gitignore").write_text("ignored.log\n")
    (path / "ignored.log").write_text("not listed\n")
    with hgit.HardenedGit(path) as g:
        got = g.uncommitted()
    assert got is not None
    assert sorted(got) == [b" M a.py", b"?? .gitignore", b"?? new.py", b"A  staged.py"]
    git(path, "clone", "--quiet", "--bare", str(path), str(tmp_path / "bare.git"))
    with hgit.HardenedGit(tmp_path / "bare.git") as g:
        assert g.uncommitted() is None  # a bare repository has no work tree


def test_the_copied_index_keeps_its_mtime_so_git_still_sees_racy_entries(
    repo: tuple[Path, str, str], tmp_path: Path
) -> None:
    # git trusts an entry's stat data only when the file is older than the index; a copy
    # stamped with the copy's time would hide a same-size edit made in the commit's second
    # (seen as a flake under load). The copy must carry the source index's own mtime.
    path, _, _ = repo
    index = path / ".git" / "index"
    stamp = 1_700_000_000_123_456_789
    os.utime(index, ns=(stamp, stamp))
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    assert src.copy_index(src.locate(path), shadow)
    assert (shadow / "index").read_bytes() == index.read_bytes()
    assert (shadow / "index").stat().st_mtime_ns == stamp
