"""Hardened git: export two commits' trees and list the paths between them, running nothing.

The repository on disk is not trusted: its ``config`` (``core.fsmonitor``, ``core.pager``,
``filter.*``, ``diff.external``, textconv), its hooks and its ``info/attributes`` could all
run code. So git never opens that repository as a repository: every command runs in a fresh
*shadow* bare repository whose only link to the source is ``objects/info/alternates``. The
source's config, hooks, refs (``refs/replace``), grafts and attributes are never read.

On top of that, every command gets a scrubbed environment (no tokens, no user or system
config, an empty HOME, no prompts, no protocols) and ``-c`` overrides that switch off hooks,
fsmonitor, filters, LFS, submodules and protocols. The shadow's ``info/attributes`` (the
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
from verify_pr.git.archive import extract_tar

COMMIT_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
GIT_TIMEOUT_S = 300
MAX_ARCHIVE_BYTES = 2 << 30
MAX_DIFF_BYTES = 64 << 20

# Switched off on every command line (they also have nothing to act on in the shadow repo).
GIT_OVERRIDES: tuple[str, ...] = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "core.pager=cat",
    "core.askPass=",
    "core.sshCommand=false",
    "core.gitProxy=",
    "core.autocrlf=false",
    "core.eol=lf",
    "core.safecrlf=false",
    "core.symlinks=true",
    "core.protectNTFS=true",
    "core.protectHFS=true",
    "protocol.allow=never",
    "protocol.ext.allow=never",
    "protocol.file.allow=never",
    "submodule.recurse=false",
    "diff.external=",
    "diff.noprefix=false",
    "diff.renames=false",
    "diff.submodule=short",
    "filter.lfs.smudge=",
    "filter.lfs.clean=",
    "filter.lfs.process=",
    "filter.lfs.required=false",
    "uploadpack.packObjectsHook=",
    "credential.helper=",
    "tar.umask=0022",
    "merge.renormalize=false",
    "merge.conflictStyle=merge",
    "safe.directory=*",
)
# Highest-precedence attributes: every path is exported byte for byte, nothing is hidden;
# ``!merge`` leaves merges to git's built-in text/binary merge (no named driver can apply).
SHADOW_ATTRIBUTES = (
    "* -export-subst -export-ignore -filter -ident -text -eol -working-tree-encoding -diff !merge\n"
)


def check_commit(value: str, what: str = "commit") -> str:
    """40 or 64 lowercase hex digits, nothing else (no refs, no ranges, no options)."""
    if not isinstance(value, str) or not COMMIT_RE.fullmatch(value):
        raise InputRefused(
            f"{what} must be a full commit id (40 or 64 lowercase hex digits), "
            f"got {str(value)[:80]!r}"
        )
    return value


def git_env(home: Path) -> dict[str, str]:
    """Built from nothing: no token, no SSH agent, no GIT_* from the caller."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "LANG": "C",
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "/bin/false",
        "SSH_ASKPASS": "/bin/false",
        "GIT_SSH_COMMAND": "/bin/false",
        "GIT_ALLOW_PROTOCOL": "none",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_LFS_SKIP_SMUDGE": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_CEILING_DIRECTORIES": "/",
    }


def _objects_dir(source: Path) -> Path:
    """The object store of a work tree, a linked worktree or a bare repo, found by reading
    files (never by asking git inside the source, which would read its config)."""
    try:
        root = source.resolve(strict=True)
    except OSError as exc:
        raise InputRefused(f"--git {str(source)!r} does not exist") from exc
    if not root.is_dir():
        raise InputRefused(f"--git {str(source)!r} is not a directory")
    dotgit = root / ".git"
    if dotgit.is_file():
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
        if not text.startswith("gitdir: "):
            raise GitError(f"{dotgit} is not a gitdir file")
        gitdir = (root / text[len("gitdir: ") :]).resolve()
    elif dotgit.is_dir():
        gitdir = dotgit.resolve()
    elif (root / "objects").is_dir() and (root / "HEAD").is_file():
        gitdir = root
    else:
        raise InputRefused(f"--git {str(source)!r} is not a git repository")
    commondir = gitdir / "commondir"
    if commondir.is_file():
        gitdir = (gitdir / commondir.read_text(encoding="utf-8").strip()).resolve()
    objects = gitdir / "objects"
    if not objects.is_dir():
        raise GitError(f"no object store at {objects}")
    if any(ch in str(objects) for ch in "\n\r\0") or not objects.is_absolute():
        raise GitError("the object store path cannot be used as an alternate")
    return objects


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
        objects = _objects_dir(self.source)
        self._tmp = Path(tempfile.mkdtemp(prefix="verify-pr-git-"))
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
    ) -> subprocess.CompletedProcess[bytes]:
        try:
            done = subprocess.run(
                self._argv(args, use_shadow),
                env=git_env(self.home),
                cwd=self._tmp,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE if stdout is None else stdout,
                stderr=subprocess.PIPE,
                timeout=GIT_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise GitError(f"git {args[0]} could not run: {exc}") from exc
        if done.returncode not in ok:
            err = done.stderr[-500:].decode("utf-8", "replace").strip()
            raise GitError(f"git {args[0]} failed ({done.returncode}): {err}")
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
        with tar_path.open("wb") as fh:
            self._run_raw(["archive", "--format=tar", sha], stdout=fh.fileno())
        try:
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
