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
  included, set after the folder's content (creating an entry changes its folder's time);
- before and head written at once, entry by entry (``manifest.write``): their change times
  (which no call can set back) and inode numbers are made within microseconds of each other,
  not one tree's writing time apart.

Only the content of the files differs between the sides: base's code files on "before",
the PR's on head.

``build`` makes the three trees a compare runs (``Sides``, the trees stage's hand-off to the
runs): base's tip, after, and before ("tests over base": the base tip with after's version of
every path that is not code, or the base tip itself, run once, when there is none), each with
base's version of the paths the harness stage names (``--strict-harness``). Before and after
are written once each, from the two exports, never copied and settled again; base's own tree
is its export settled where it lies (renamed, its times set): nothing of the PR runs in it, so
it is no side a test could tell apart. ``Sides.moving`` rebuilds before when the runs move
code paths to the test side, and sets before's and after's times again at once.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from verify_pr.verify.trees import manifest
from verify_pr.verify.trees.export import Exported
from verify_pr.verify.trees.manifest import DIR_MODE, FIXED_TIME, Folder

__all__ = ["FIXED_TIME", "Sides", "build", "settle"]


@dataclass(frozen=True)
class Sides:
    """The settled trees of a compare: base's tip, before (base's code, the PR's tests) and
    after (head, or head merged into base)."""

    base: Path
    before: Path
    after: Path

    def moving(self, moved: Sequence[str], from_base: Sequence[str], work: Path) -> Sides:
        """Before rebuilt with after's version of ``moved`` (code paths the runs placed tests
        in) and base's of ``from_base``, checked again; its times and after's set again at
        once, so the two stay made alike (after keeps its path: runs may be using it)."""
        from verify_pr.sandbox.guard import check_tree

        before, after = manifest.read(self.before), manifest.read(self.after)
        manifest.overlay(before, after, moved)
        if from_base:
            manifest.overlay(before, manifest.read(self.base), from_base)
        rebuilt = _fresh(work)
        manifest.write([before], [rebuilt])
        if self.before != self.base:
            shutil.rmtree(self.before, ignore_errors=True)
        manifest.restamp([rebuilt, self.after], [before, after])
        check_tree(rebuilt)
        return replace(self, before=rebuilt)


def build(trees: Exported, work: Path, shared: Sequence[str], from_base: Sequence[str]) -> Sides:
    """Before built from base's tip with after's version of every ``shared`` path, base's
    version of ``from_base`` in before and after; before and after written at once from the
    exports (which go), base's export settled where it lies; the three checked."""
    from verify_pr.sandbox.guard import check_tree

    base = manifest.read(trees.base)
    after = manifest.read(trees.after)
    before: Folder | None = None
    if shared:
        before = _clone(base)
        manifest.overlay(before, after, shared)  # after's own version, before the harness's
        manifest.overlay(before, base, from_base)
    manifest.overlay(after, base, from_base)
    roots = [_fresh(work), _fresh(work)]
    # every tree built the same way: only the code files' content tells the sides apart
    manifest.write([base if before is None else before, after], roots)
    shutil.rmtree(trees.after, ignore_errors=True)
    if before is None:  # before is the base tip itself, run once
        shutil.rmtree(trees.base, ignore_errors=True)
        sides = Sides(roots[0], roots[0], roots[1])
    else:
        sides = Sides(_in_place(trees.base, work), roots[0], roots[1])
    for tree in {sides.base, sides.after, sides.before}:
        check_tree(tree)
    return sides


def _clone(folder: Folder) -> Folder:
    """A copy of the folders (files and links are shared: they are never changed)."""
    return {name: _clone(e) if isinstance(e, dict) else e for name, e in folder.items()}


def _fresh(work: Path) -> Path:
    """A new tree's place: ``work/<32 random hex>/tree`` (not yet made)."""
    holder = work / secrets.token_hex(16)
    holder.mkdir(mode=DIR_MODE)
    os.chmod(holder, DIR_MODE)
    return holder / "tree"


def _in_place(export: Path, work: Path) -> Path:
    """The export moved to a fresh place and given ``FIXED_TIME`` (its modes are the export's:
    folders 0755, files 0644 or 0755)."""
    dest = _fresh(work)
    os.rename(export, dest)
    os.chmod(dest, DIR_MODE)
    manifest.restamp([dest])
    return dest


def settle(tree: Path, work: Path, *, keep: bool = False) -> Path:
    """A canonical copy of ``tree`` at a fresh random path under ``work``; ``tree`` itself is
    removed unless ``keep``."""
    dest = _fresh(work)
    manifest.write([manifest.read(tree)], [dest])
    if not keep:
        shutil.rmtree(tree, ignore_errors=True)
    return dest
