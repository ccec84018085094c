"""Every tree a comparison runs, built the same way, so a test cannot tell which side it is on.

A tree is mounted read-only at /repo and copied to /work inside the container (``cp -R``:
the entries in the order /repo lists them, new times, modes under the umask). What a test
can see of the tree itself is therefore /repo's metadata, the listing order of each folder,
and where the tree lies on the host (``/proc/self/mountinfo`` names the bind mount's source).
``settle`` rebuilds a tree so that all of these are the same on every side
(docs/threat-model.md, "What could tell the sides apart"):

- a fresh folder with a random name of one length (``work/<32 hex>/tree``): the host path
  says nothing of the side;
- entries created in sorted order (files, links, folders), so a folder with the same names
  lists them in the same order on the same filesystem;
- every file 0644, or 0755 when the export made it executable; every folder 0755; links as
  links;
- one fixed time (``FIXED_TIME``) as access and modification time of every entry, the root
  included, set after the folder's content (creating an entry changes its folder's time).

Only the content of the files differs between the sides: base's code files on "before",
the PR's on head.

``build`` makes the three trees a compare runs (``Sides``, the trees stage's hand-off to the
runs): base's tip, after, and before ("tests over base": the base tip with after's version of
every path that is not code, or the base tip itself, run once, when there is none), each with
base's version of the paths the harness stage names (``--strict-harness``), then settled.
``Sides.moving`` rebuilds before when the runs move code paths to the test side.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from verify_pr.verify.trees import overlay
from verify_pr.verify.trees.export import Exported

FIXED_TIME = 1_000_000_000  # 2001-09-09T01:46:40Z: no commit's time, the same for every tree
FILE_MODE = 0o644
EXEC_MODE = 0o755
DIR_MODE = 0o755


@dataclass(frozen=True)
class Sides:
    """The settled trees of a compare: base's tip, before (base's code, the PR's tests) and
    after (head, or head merged into base)."""

    base: Path
    before: Path
    after: Path

    def moving(self, moved: Sequence[str], from_base: Sequence[str], work: Path) -> Sides:
        """Before rebuilt with after's version of ``moved`` (code paths the runs placed tests
        in) and base's of ``from_base``, settled and checked again."""
        from verify_pr.sandbox.guard import check_tree

        before = self.before
        if before == self.base:
            before = _copy(self.base, work / "before")
        overlay.overlay_paths(self.after, before, moved)
        overlay.overlay_harness(self.base, before, from_base)
        before = settle(before, work)
        check_tree(before)
        return replace(self, before=before)


def build(trees: Exported, work: Path, shared: Sequence[str], from_base: Sequence[str]) -> Sides:
    """Before built from base's tip with after's version of every ``shared`` path, base's
    version of ``from_base`` in before and after, and the three settled and checked."""
    from verify_pr.sandbox.guard import check_tree

    before = trees.base
    if shared:
        before = _copy(trees.base, work / "before")
        overlay.overlay_paths(trees.after, before, shared)
    overlay.overlay_harness(trees.base, trees.after, from_base)
    if before != trees.base:
        overlay.overlay_harness(trees.base, before, from_base)
    # every tree built the same way: only the code files' content tells the sides apart
    settled = settle_all([trees.base, before, trees.after], work)
    sides = Sides(settled[trees.base], settled[before], settled[trees.after])
    for tree in {sides.base, sides.after, sides.before}:
        check_tree(tree)
    return sides


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


def settle(tree: Path, work: Path, *, keep: bool = False) -> Path:
    """A canonical copy of ``tree`` at a fresh random path under ``work``; ``tree`` itself is
    removed unless ``keep``."""
    holder = work / secrets.token_hex(16)
    holder.mkdir(mode=DIR_MODE)
    dest = holder / "tree"
    dest.mkdir(mode=DIR_MODE)
    _fill(tree, dest)
    os.chmod(holder, DIR_MODE)
    if not keep:
        shutil.rmtree(tree, ignore_errors=True)
    return dest


def settle_all(trees: list[Path], work: Path) -> dict[Path, Path]:
    """Each distinct tree of ``trees`` settled once: old path -> new path."""
    return {tree: settle(tree, work) for tree in dict.fromkeys(trees)}


def _fill(src: Path, dest: Path) -> None:
    for name in sorted(os.listdir(src)):
        source, target = src / name, dest / name
        st = os.lstat(source)
        if stat.S_ISDIR(st.st_mode):
            target.mkdir(mode=DIR_MODE)
            _fill(source, target)
        elif stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(source), target)
        elif stat.S_ISREG(st.st_mode):
            shutil.copyfile(source, target, follow_symlinks=False)
            os.chmod(target, EXEC_MODE if st.st_mode & 0o111 else FILE_MODE)
            os.utime(target, (FIXED_TIME, FIXED_TIME))
            continue
        else:
            continue  # our exports hold files, links and folders only
        os.utime(target, (FIXED_TIME, FIXED_TIME), follow_symlinks=False)
    os.chmod(dest, DIR_MODE)
    os.utime(dest, (FIXED_TIME, FIXED_TIME))
