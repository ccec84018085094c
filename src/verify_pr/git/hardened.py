"""Hardened git: export two commits' trees and list the paths between them, running nothing.

The repository on disk is not trusted: its ``config`` (``core.fsmonitor``, ``core.pager``,
``filter.*``, ``diff.external``, textconv), its hooks and its ``info/attributes`` could all
run code. So git never opens that repository as a repository: every command runs in a fresh
*shadow* bare repository whose only link to the source is ``objects/info/alternates``. The
source's config, hooks, ``refs/replace``, grafts and attributes are never read; its branches,
tags, HEAD and index are copied in as data (``source``) only to resolve a name or to read the
work tree's status.

On top of that, every command gets a scrubbed environment (no tokens, no user or system
config, an empty HOME, no prompts, no protocols) and ``-c`` overrides (``env``) that switch
off hooks, fsmonitor, filters, LFS, submodules and protocols. The shadow's ``info/attributes`` (the
highest-precedence attributes file) unsets export-subst, export-ignore, filter, ident, text,
eol and working-tree-encoding for every path, so ``git archive`` writes each blob as stored
and hides nothing, whatever ``.gitattributes`` the tree carries.

Trees are exported with ``git archive`` (no checkout) and extracted by ``archive``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from verify_pr.errors import GitError, InputRefused
from verify_pr.git import source as src
from verify_pr.git.archive import extract_tar
from verify_pr.git.env import GIT_OVERRIDES, SHADOW_ATTRIBUTES, git_env

COMMIT_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# what ``--base``/``--head`` may name: a ref or a short id, with ``~N``/``^N`` steps; never a
# leading ``-`` (an option), never ``:`` (a path), ``@{`` (a reflog) or ``..`` (a range)
REF_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./@+-]{0,254}(?:[~^][0-9]{0,4}){0,8}")
SHORT_ID_RE = re.compile(r"[0-9a-f]{4,63}")
GIT_TIMEOUT_S = 300
STATUS_TIMEOUT_S = 60  # only for a warning: a huge untracked tree must not hold compare long
MAX_ARCHIVE_BYTES = 2 << 30
MAX_DIFF_BYTES = 64 << 20


def check_commit(value: str, what: str = "commit") -> str:
    """40 or 64 lowercase hex digits, nothing else (no refs, no ranges, no options)."""
    if not isinstance(value, str) or not COMMIT_RE.fullmatch(value):
        raise InputRefused(
            f"{what} must be a full commit id (40 or 64 lowercase hex digits), "
            f"got {str(value)[:80]!r}"
        )
    return value


def check_ref(value: str, what: str = "commit") -> str:
    """A branch, tag or short id as a user types it: no option, no range, no reflog, no path."""
    if (
        not isinstance(value, str)
        or not REF_RE.fullmatch(value)
        or ".." in value
        or "@{" in value
        or value.endswith((".lock", "/", "."))
    ):
        raise InputRefused(
            f"{what} must be a branch, a tag, a short or full commit id, got {str(value)[:80]!r}"
        )
    return value


@dataclass(frozen=True)
class MergeOutcome:
    """The tree git wrote, and the conflicting paths (empty when the merge is clean)."""

    tree: str
    conflicts: tuple[bytes, ...]


@dataclass
class HardenedGit:
    """A shadow repository borrowing the objects of ``source``; use as a context manager."""

    source: Path
    object_format: str = "sha1"

    def __post_init__(self) -> None:
        if self.object_format not in ("sha1", "sha256"):
            raise InputRefused("object format must be sha1 or sha256")
        self._dirs = src.locate(self.source)
        objects = src.objects_dir(self._dirs)
        self._refs_copied = False
        self._tmp = Path(tempfile.mkdtemp(prefix="verify-pr-git-"))
        try:
            self._make_shadow(objects)
        except BaseException:  # a git failure, or a cancel (errors.Cancelled): no temp left
            self.close()
            raise

    def _make_shadow(self, objects: Path) -> None:
        self.home = self._tmp / "home"
        self.home.mkdir()
        self.shadow = self._tmp / "shadow.git"
        self._run_raw(
            [
                "init",
                "--bare",
                "--quiet",
                f"--object-format={self.object_format}",
                "--template=",
                str(self.shadow),
            ],
            use_shadow=False,
        )
        info = self.shadow / "objects" / "info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "alternates").write_text(f"{objects}\n", encoding="utf-8")
        (self.shadow / "info").mkdir(exist_ok=True)
        (self.shadow / "info" / "attributes").write_text(SHADOW_ATTRIBUTES, encoding="utf-8")
        hooks = self.shadow / "hooks"
        if hooks.exists():
            shutil.rmtree(hooks)

    def __enter__(self) -> HardenedGit:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        shutil.rmtree(self._tmp, ignore_errors=True)

    def _argv(self, args: Sequence[str], use_shadow: bool) -> list[str]:
        argv = ["git", "--no-pager", "--no-replace-objects"]
        for override in GIT_OVERRIDES:
            argv += ["-c", override]
        if use_shadow:
            argv += [f"--git-dir={self.shadow}"]
        return argv + list(args)

    def _run_raw(
        self,
        args: Sequence[str],
        *,
        use_shadow: bool = True,
        stdout: int | None = None,
        ok: tuple[int, ...] = (0,),
        timeout_s: int = GIT_TIMEOUT_S,
    ) -> subprocess.CompletedProcess[bytes]:
        command = next((a for a in args if not a.startswith("-")), args[0])
        try:
            done = subprocess.run(
                self._argv(args, use_shadow),
                env=git_env(self.home),
                cwd=self._tmp,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE if stdout is None else stdout,
                stderr=subprocess.PIPE,
                timeout=timeout_s,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise GitError(f"git {command} could not run: {exc}") from exc
        if done.returncode not in ok:
            err = done.stderr[-500:].decode("utf-8", "replace").strip()
            raise GitError(f"git {command} failed ({done.returncode}): {err}")
        return done

    def require_commit(self, sha: str, what: str = "commit") -> str:
        check_commit(sha, what)
        expected = 64 if self.object_format == "sha256" else 40
        if len(sha) != expected:
            raise InputRefused(f"{what} is not a {self.object_format} id")
        try:
            kind = self._run_raw(["cat-file", "-t", sha]).stdout.strip()
        except GitError as exc:
            raise GitError(f"{what} {sha} is not in the repository") from exc
        if kind != b"commit":
            raise GitError(f"{what} {sha} is a {kind.decode('ascii', 'replace')}, not a commit")
        return sha

    def _copy_refs(self) -> None:
        if not self._refs_copied:
            src.copy_refs(self._dirs, self.shadow)
            self._refs_copied = True

    def resolve(self, ref: str, what: str = "commit") -> str:
        """A branch, tag, short id or full id of the source as its full commit id, with
        ``rev-parse --verify`` in the shadow (which holds copies of the source's refs)."""
        check_ref(ref, what)
        if COMMIT_RE.fullmatch(ref):
            return self.require_commit(ref, what)
        self._copy_refs()
        done = self._run_raw(
            ["rev-parse", "--verify", "--end-of-options", f"{ref}^{{commit}}"], ok=(0, 128)
        )
        said = done.stderr.decode("utf-8", "replace").strip()
        if "ambiguous" in said:
            raise InputRefused(f"{what} {ref!r} is ambiguous: name it in full ({said[:200]})")
        if done.returncode != 0:
            raise InputRefused(f"{what} {ref!r} names no commit of the repository")
        if SHORT_ID_RE.fullmatch(ref):
            listed = self._run_raw(["rev-parse", f"--disambiguate={ref}"], ok=(0, 128))
            if len(listed.stdout.split()) > 1:
                raise InputRefused(
                    f"{what} {ref!r} is ambiguous: {len(listed.stdout.split())} objects "
                    "start with it; give more digits"
                )
        return self.require_commit(done.stdout.decode("ascii", "replace").strip(), what)

    def uncommitted(self) -> list[bytes] | None:
        """``git status --porcelain`` lines of the source's work tree against its HEAD (None
        when it has no work tree or index): read in the shadow from a copy of the index and
        refs, so no hook, fsmonitor, filter or submodule of the source runs."""
        if self._dirs.work_tree is None:
            return None
        self._copy_refs()
        if not src.copy_index(self._dirs, self.shadow):
            return None
        done = self._run_raw(
            [
                f"--work-tree={self._dirs.work_tree}",
                "status",
                "--porcelain=v1",
                "-z",
                "--no-renames",
                "--untracked-files=normal",
                "--ignore-submodules=all",
            ],
            timeout_s=STATUS_TIMEOUT_S,
        )
        if len(done.stdout) > MAX_DIFF_BYTES:
            raise GitError("the work tree's status is too large")
        return parse_nul_list(done.stdout)

    def require_tree_ish(self, sha: str, what: str = "tree") -> str:
        """A commit or a tree object of the repository (a merge result is a bare tree)."""
        check_commit(sha, what)
        try:
            kind = self._run_raw(["cat-file", "-t", sha]).stdout.strip()
        except GitError as exc:
            raise GitError(f"{what} {sha} is not in the repository") from exc
        if kind not in (b"commit", b"tree"):
            raise GitError(f"{what} {sha} is a {kind.decode('ascii', 'replace')}, not a tree")
        return sha

    def changed_paths(self, base: str, head: str) -> list[bytes]:
        """Paths that differ between the two trees (both sides of a rename), as raw bytes;
        ``head`` may be a merge result's tree."""
        self.require_commit(base, "base")
        self.require_tree_ish(head, "head")
        done = self._run_raw(
            [
                "diff",
                "--name-only",
                "-z",
                "--no-renames",
                "--no-ext-diff",
                "--no-textconv",
                "--ignore-submodules=none",
                base,
                head,
                "--",
            ]
        )
        if len(done.stdout) > MAX_DIFF_BYTES:
            raise GitError("the list of changed paths is too large")
        return parse_nul_list(done.stdout)

    def renamed_paths(self, base: str, head: str) -> list[tuple[bytes, bytes]]:
        """(old, new) for every rename or copy git detects between the two trees; ``head``
        may be a merge result's tree."""
        self.require_commit(base, "base")
        self.require_tree_ish(head, "head")
        done = self._run_raw(
            [
                "diff",
                "--name-status",
                "-z",
                "-M",
                "-C",
                "--no-ext-diff",
                "--no-textconv",
                base,
                head,
                "--",
            ]
        )
        if len(done.stdout) > MAX_DIFF_BYTES:
            raise GitError("the list of changed paths is too large")
        fields, pairs, i = parse_nul_list(done.stdout), [], 0
        while i < len(fields):
            status = fields[i][:1]
            if status in (b"R", b"C") and i + 2 < len(fields):
                pairs.append((fields[i + 1], fields[i + 2]))
                i += 3
            else:
                i += 2
        return pairs

    def added_lines_diff(self, base: str, head: str, path: str) -> bytes:
        """``git diff -U0`` of one path (a literal pathspec), whose hunk headers say which lines
        head adds or changes (``git.changed_lines``); ``head`` may be a tree. ``--text``: the
        shadow's attributes unset ``text``, which would make every file a binary one."""
        self.require_commit(base, "base")
        self.require_tree_ish(head, "head")
        flags = ["-U0", "--text", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"]
        done = self._run_raw(["diff", *flags, base, head, "--", f":(literal){path}"])
        if len(done.stdout) > MAX_DIFF_BYTES:
            raise GitError("the diff of a changed file is too large")
        return done.stdout

    def merge_bases(self, base: str, head: str) -> list[str]:
        """Every best common ancestor (none for unrelated histories)."""
        self.require_commit(base, "base")
        self.require_commit(head, "head")
        done = self._run_raw(["merge-base", "--all", base, head], ok=(0, 1))
        return [check_commit(line, "merge base") for line in done.stdout.decode().split()]

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        done = self._run_raw(["merge-base", "--is-ancestor", ancestor, descendant], ok=(0, 1))
        return done.returncode == 0

    def merge_tree(self, base: str, head: str) -> MergeOutcome:
        """Head merged into base with ``git merge-tree --write-tree`` (objects only: no
        checkout, no index, no hooks; attributes and config are the shadow's own)."""
        self.require_commit(base, "base")
        self.require_commit(head, "head")
        done = self._run_raw(
            ["merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", base, head],
            ok=(0, 1),
        )
        tree, _, rest = done.stdout.partition(b"\0")
        tree_id = tree.decode("ascii", "replace")
        if not COMMIT_RE.fullmatch(tree_id):
            raise GitError("git merge-tree did not print a tree id")
        conflicts = sorted({p for p in rest.split(b"\0") if p})
        if done.returncode == 1 and not conflicts:
            raise GitError("git merge-tree reported a conflict but named no path")
        return MergeOutcome(tree_id, tuple(conflicts) if done.returncode == 1 else ())

    def export(self, sha: str, dest_parent: Path | None = None, what: str = "commit") -> Path:
        """``git archive`` the commit's tree into a fresh folder and return it."""
        self.require_commit(sha, what)
        return self._export(sha, dest_parent, what)

    def export_tree(
        self, tree_id: str, dest_parent: Path | None = None, what: str = "tree"
    ) -> Path:
        """``git archive`` a tree object (a merge result) into a fresh folder."""
        check_commit(tree_id, what)
        kind = self._run_raw(["cat-file", "-t", tree_id]).stdout.strip()
        if kind != b"tree":
            raise GitError(f"{what} {tree_id} is not a tree")
        return self._export(tree_id, dest_parent, what)

    def _export(self, sha: str, dest_parent: Path | None, what: str) -> Path:
        dest = Path(tempfile.mkdtemp(prefix=f"verify-pr-{what}-", dir=dest_parent))
        tar_path = self._tmp / f"{sha}.tar"
        try:
            with tar_path.open("wb") as fh:
                self._run_raw(["archive", "--format=tar", sha], stdout=fh.fileno())
            if tar_path.stat().st_size > MAX_ARCHIVE_BYTES:
                raise GitError(f"the archive of {sha} is over {MAX_ARCHIVE_BYTES} bytes")
            extract_tar(tar_path, dest)
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
        finally:
            tar_path.unlink(missing_ok=True)
        return dest


def parse_nul_list(data: bytes) -> list[bytes]:
    """``a\\0b\\0`` -> [a, b]; an entry with no trailing NUL is refused as truncated."""
    if not data:
        return []
    if not data.endswith(b"\0"):
        raise GitError("git output was not NUL-terminated")
    return data[:-1].split(b"\0")


def decode_path(raw: bytes) -> str:
    """A path as text for display and matching (undecodable bytes kept via surrogateescape)."""
    return os.fsdecode(raw)
