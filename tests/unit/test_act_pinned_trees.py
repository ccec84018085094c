"""tests/act's "pinned" mode serves verify-pr as the docs pin it: every pinned commit from
``git archive <sha>``, followed through the reusable workflows at that commit, never the
working tree (no Docker: this checks the mapping act is given)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.act.harness import SELF_REPO, pinned_repositories
from tests.action.helpers import ROOT, SHIPPED


def shown(sha: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{sha}:{path}"], capture_output=True, check=True
    ).stdout


def test_each_pin_is_served_from_its_own_commit(tmp_path: Path) -> None:
    served = dict(m.split("=", 1) for m in pinned_repositories(tmp_path))
    own = {k.split("@", 1)[1]: Path(v) for k, v in served.items() if k.startswith(SELF_REPO + "@")}
    docs = {
        line.split(f"{SELF_REPO}@", 1)[1][:40]
        for path in SHIPPED
        if "/docs/examples/" in str(path)
        for line in path.read_text(encoding="utf-8").splitlines()
        if f"{SELF_REPO}@" in line
    }
    assert docs and docs <= set(own), (docs, own)
    for sha, tree in own.items():
        assert tree != ROOT and tree.is_relative_to(tmp_path)
        for name in ("action.yml", "publish/action.yml"):
            if (tree / name).is_file():
                assert (tree / name).read_bytes() == shown(sha, name), (sha, name)
    # the reusable workflows at the docs' pin name another commit: it is served too
    (pin,) = docs
    inner = shown(pin, ".github/workflows/publish.yml").decode()
    assert inner.split(f"{SELF_REPO}/publish@", 1)[1][:40] in own


def test_an_old_pin_is_not_the_working_tree(tmp_path: Path) -> None:
    """Positive control: the first commit the docs pinned is served as it was, which differs
    from this checkout's action.yml (so a pass in pinned mode is the pinned code's)."""
    from tests.act.harness import archive

    first = "3fe1cd29ff1832012a34b131891f9dd0dd666bb5"
    tree = archive(first, tmp_path / first)
    assert (tree / "action.yml").read_bytes() == shown(first, "action.yml")
    assert (tree / "action.yml").read_bytes() != (ROOT / "action.yml").read_bytes()
