"""Repo shapes: links out of the repo (refused on the host, never followed), special files,
and names with spaces, newlines and non-UTF-8 bytes (copied as they are)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hostile.helpers import attack, control, expect, refused
from tests.sandbox_helpers import make_repo


def _repo_with(tmp_path: Path, shape: str) -> tuple[Path, Path]:
    """The repo, and the path inside it that would reach the host marker if followed."""
    repo = make_repo(tmp_path)
    secret = tmp_path / "host-secret"
    secret.write_text("host secret\n")
    os.chmod(tmp_path, 0o755)  # noqa: S103 (the sandbox user must traverse it)
    deep = repo / "a" / "b" / "c"
    deep.mkdir(parents=True)
    for d in (repo / "a", repo / "a" / "b", deep):
        d.chmod(0o755)
    if shape == "absolute":
        os.symlink(str(secret), repo / "link")
        return repo, repo / "link"
    if shape == "relative-escape":
        os.symlink("../host-secret", repo / "link")
        return repo, repo / "link"
    if shape == "chain":
        os.symlink("hop2", repo / "hop1")
        os.symlink("a/b/../../../host-secret", repo / "hop2")
        return repo, repo / "hop1"
    if shape == "directory-link":
        os.symlink("..", repo / "up")
        return repo, repo / "up" / "host-secret"
    if shape == "deep-link":
        os.symlink("../../../../host-secret", deep / "link")
        return repo, deep / "link"
    raise AssertionError(shape)


@pytest.mark.parametrize(
    "shape", ["absolute", "relative-escape", "chain", "directory-link", "deep-link"]
)
def test_links_out_of_the_repo_are_refused(minimal_image: str, tmp_path: Path, shape: str) -> None:
    repo, reach = _repo_with(tmp_path, shape)
    run = attack(tmp_path, minimal_image, "cat link hop1 up/host-secret a/b/c/link", repo=repo)
    refused(run, "symlink")
    # Positive control: followed on the host, the link does reach the host's file.
    assert reach.read_text() == "host secret\n"
    control("followed on the host, the link reaches a host file")


def test_links_inside_the_repo_are_copied(minimal_image: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a/real": "inside\n"})
    os.symlink("a/real", repo / "l1")
    os.symlink("l1", repo / "l2")
    os.symlink("a", repo / "dirlink")
    run = attack(
        tmp_path, minimal_image, "cat l2 dirlink/real; ls -l l2 | grep -c -- '->'", repo=repo
    )
    expect(run, "COMPLETED", 0)
    assert run.output == b"inside\ninside\n1\n"
    control("the in-repo chain resolves inside the container and stays a link")


def test_fifo_in_the_repo_is_refused(minimal_image: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    os.mkfifo(repo / "pipe")
    run = attack(tmp_path, minimal_image, "cat pipe", repo=repo)
    refused(run, "not a regular file")
    assert (repo / "pipe").is_fifo()
    control("the FIFO is there on the host (a reader would block)")


def test_awkward_names_are_copied_as_bytes(minimal_image: str, tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    names = [b"with space", b"new\nline", b"bad-\xff\xfe-utf8", b"-dash"]
    for name in names:
        path = os.path.join(os.fsencode(repo), name)
        with open(path, "wb") as f:
            f.write(b"x\n")
        os.chmod(path, 0o644)
    cmd = 'for f in /work/*; do [ -f "$f" ] && cat -- "$f"; done | wc -l; for f in /work/*; do printf \'%s/\' "$f"; done | od -An -c'
    run = attack(tmp_path, minimal_image, cmd, repo=repo)
    expect(run, "COMPLETED", 0)
    text = run.output.replace(b" ", b"").replace(b"\n", b"")
    assert run.output.split()[0] == b"5"  # README and the four names, each read by its name
    assert b"withspace" in text and b"new\\nline" in text and b"377376" in text, run.output
    control("the probe lists every name, bytes intact")
