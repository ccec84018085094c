"""The trees stage: base's tip and after exported with hardened git, and what was compared.

What is compared (as GitHub tests a PR, ``refs/pull/N/merge``): after is head merged into the
base tip (``git merge-tree --write-tree``; head's own tree when the base tip is its ancestor).
A conflict is NOT PROVEN, naming the paths: never a fallback. The PR's change is the paths
from every merge base to head and those where after differs from the base tip (merge-ort
follows a rename made on base). ``Context`` is this stage's hand-off to the result file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from verify_pr.models.compare import CompareMethod


@dataclass(frozen=True)
class Context:
    """What was compared: the commits, how after was made, and why nothing ran when nothing
    did (no merge base, head already in base, a conflict)."""

    base_sha: str
    head_sha: str
    method: CompareMethod | None = None
    merge_base: str | None = None
    merge_tree: str | None = None
    conflicts: tuple[str, ...] = ()
    refusal: str | None = None

    @property
    def after(self) -> str:
        """After for git: the merge's tree, or head's commit (head's own tree)."""
        return self.merge_tree or self.head_sha


@dataclass(frozen=True)
class Exported:
    """The two fresh exports (none when ``context.refusal`` says why), the paths the PR
    changes, and the renames among them (a renamed harness file stays harness)."""

    base: Path
    after: Path
    context: Context
    changed: list[str]
    renames: tuple[tuple[str, str], ...] = ()


def export(git_dir: Path, base_sha: str, head_sha: str, work: Path) -> Exported:
    """Base's tip and after (head, or head merged into base) as fresh exports under ``work``,
    with every path the PR changes; no trees, and why, when there is nothing to compare."""
    from verify_pr.git.hardened import HardenedGit, decode_path

    fmt = "sha256" if len(base_sha) == 64 else "sha1"
    with HardenedGit(git_dir, object_format=fmt) as git:
        git.require_commit(base_sha, "base")
        git.require_commit(head_sha, "head")
        merge_bases = git.merge_bases(base_sha, head_sha)
        empty = Path()
        if not merge_bases:
            why = "base and head share no history (no merge base): nothing to compare"
            return Exported(
                empty, empty, Context(base_sha, head_sha, CompareMethod.NONE, refusal=why), []
            )
        first = merge_bases[0]
        if git.is_ancestor(head_sha, base_sha):
            why = "head is already part of base (it is an ancestor of base): nothing to compare"
            ctx = Context(base_sha, head_sha, CompareMethod.NONE, merge_base=first, refusal=why)
            return Exported(empty, empty, ctx, [])
        changed: set[str] = set()
        renames: set[tuple[str, str]] = set()
        for merge_base in merge_bases:  # criss-cross history: every best base counts
            changed.update(decode_path(p) for p in git.changed_paths(merge_base, head_sha))
            renames.update(
                (decode_path(a), decode_path(b)) for a, b in git.renamed_paths(merge_base, head_sha)
            )
        if base_sha in merge_bases:
            ctx = Context(base_sha, head_sha, CompareMethod.HEAD, merge_base=first)
            after = git.export(head_sha, work, "head")
        else:
            merge = git.merge_tree(base_sha, head_sha)
            conflicts = tuple(decode_path(p) for p in merge.conflicts)
            ctx = Context(
                base_sha,
                head_sha,
                CompareMethod.MERGE,
                merge_base=first,
                merge_tree=merge.tree,
                conflicts=conflicts,
            )
            if conflicts:
                shown = ", ".join(conflicts[:5]) + (" ..." if len(conflicts) > 5 else "")
                why = (
                    f"head does not merge cleanly into base: {len(conflicts)} conflicting "
                    f"path(s) ({shown}); rebase the PR on its base branch"
                )
                return Exported(empty, empty, replace(ctx, refusal=why), sorted(changed))
            after = git.export_tree(merge.tree, work, "merge")
            # the merged tree is classified whole: merge-ort follows a rename made on base,
            # so a path the PR's own diff does not name can still differ from base's tip
            changed.update(decode_path(p) for p in git.changed_paths(base_sha, merge.tree))
            renames.update(
                (decode_path(a), decode_path(b)) for a, b in git.renamed_paths(base_sha, merge.tree)
            )
        base = git.export(base_sha, work, "base")
    return Exported(base, after, ctx, sorted(changed), tuple(sorted(renames)))
