"""The Debian root filesystems (mmdebstrap, cached) and the npm trees of the node and bun images."""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
import re
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

from .common import (
    CACHE,
    HERE,
    MERGED_USR_HOOKS,
    ROOTFS_KEEP,
    SUITE,
    BuildError,
    need_tools,
    run,
    say,
)


def host_archives() -> tuple[str, str | None]:
    """The Debian archive's and the security archive's URIs (ending in "/"), taken from the
    host's apt index targets (Debian origin); the archive is required, the security one is
    None when the host has none."""
    fmt = "$(TARGET_OF) $(ORIGIN) $(LABEL) $(REPO_URI)"
    for attempt in range(2):
        archive = security = None
        for line in run(["apt-get", "indextargets", "--format", fmt]).splitlines():
            parts = line.split()
            if len(parts) != 4 or parts[0] != "deb" or parts[1] != "Debian":
                continue
            if parts[2] == "Debian":
                archive = archive or parts[3]
            elif parts[2] == "Debian-Security":
                security = security or parts[3]
        if archive:
            return archive, security
        if attempt == 0:
            say("no Debian index targets on the host: running apt-get update")
            run(["apt-get", "update", "-qq"])
    raise BuildError("the host's apt configuration has no Debian archive to build from")


def host_sources() -> str:
    """One-line apt sources for SUITE, taken from the host's Debian index targets."""
    archive, security = host_archives()
    keyring = "/usr/share/keyrings/debian-archive-keyring.gpg"
    opts = f"[signed-by={keyring}] " if Path(keyring).is_file() else ""
    lines = [f"deb {opts}{archive} {SUITE} main", f"deb {opts}{archive} {SUITE}-updates main"]
    if security:
        lines.append(f"deb {opts}{security} {SUITE}-security main")
    else:
        say("warning: the host has no Debian security archive; building without it")
    return "\n".join(lines) + "\n"


def read_packages(rel: str) -> list[str]:
    text = (HERE / rel).read_text()
    pkgs = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    pkgs = [p for p in pkgs if p]
    if not pkgs or any(not re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", p) for p in pkgs):
        raise BuildError(f"{rel}: expected Debian package names, got {pkgs}")
    return pkgs


FRESH_ROOTFS: set[Path] = set()  # built by this run (node and bun share one)


def mmdebstrap_options(packages: Sequence[str], debs: str, hook: str) -> list[str]:
    """mmdebstrap's options for a root filesystem of `packages` (paths given shell-quoted)."""
    excludes = [
        "/usr/share/doc/*",
        "/usr/share/man/*",
        "/usr/share/info/*",
        "/usr/share/locale/*",
        "/usr/share/lintian/*",
    ]
    includes = ["/usr/share/doc/*/copyright", "/usr/share/locale/locale.alias"]
    return [
        "--variant=essential",
        "--mode=root",
        "--format=tar",
        f"--include={','.join(packages)}",
        '--aptopt=APT::Install-Recommends "false"',
        '--aptopt=APT::Install-Suggests "false"',
        '--aptopt=Acquire::Languages "none"',
        *(f"--dpkgopt=path-exclude={p}" for p in excludes),
        *(f"--dpkgopt=path-include={p}" for p in includes),
        f"--hook-dir={MERGED_USR_HOOKS}",
        # Keep the .debs between runs: seed apt's archive dir, copy it back before cleanup.
        "--skip=essential/unlink",
        '--setup-hook=mkdir -p "$1"/var/cache/apt/archives/',
        f"--setup-hook=sync-in {debs} /var/cache/apt/archives/",
        f"--customize-hook=sync-out /var/cache/apt/archives {debs}",
        f'--customize-hook=sh {hook} "$1"',
    ]


def debian_rootfs(kind: str, packages_rel: str, *, force: bool = False) -> Path:
    """A root filesystem tar from mmdebstrap, cached under CACHE/rootfs.

    Its key covers the mmdebstrap options, the package list and the customize hook, not the
    rest of this script, so editing the script does not redo the slow part.
    """
    packages = read_packages(packages_rel)
    hook = HERE / "debian" / "customize.sh"
    h = hashlib.sha256()
    h.update("\0".join([SUITE, *mmdebstrap_options(packages, "DEBS", "HOOK")]).encode())
    h.update(hook.read_bytes())
    out = CACHE / "rootfs" / f"{kind}-{h.hexdigest()[:16]}.tar"
    if out.is_file() and not (force and out not in FRESH_ROOTFS):
        say(f"{kind} root filesystem: cached {out.name}")
        return out
    need_tools("mmdebstrap", "apt-get")
    debs = CACHE / "debs" / kind  # one per kind: two builds may run at once (prefetch)
    debs.mkdir(parents=True, exist_ok=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.stem}.{os.getpid()}.tar")
    options = mmdebstrap_options(packages, shlex.quote(str(debs)), shlex.quote(str(hook)))
    cmd = ["mmdebstrap", *options, SUITE, str(tmp), "-"]
    log = CACHE / "logs" / f"mmdebstrap-{kind}.log"
    say(f"{kind} root filesystem: mmdebstrap {SUITE} + {' '.join(packages)} (log {log})")
    try:
        run(cmd, log=log, input_text=host_sources())
        tmp.rename(out)
        FRESH_ROOTFS.add(out)
    finally:
        tmp.unlink(missing_ok=True)
    old = sorted(out.parent.glob(f"{kind}-*.tar"), key=lambda p: p.stat().st_mtime)
    for stale in old[:-ROOTFS_KEEP]:
        stale.unlink()
    say(f"{kind} root filesystem: {out.stat().st_size / 1e6:.0f} MB tar")
    return out


def npm_ci(kind: str, stage: Path) -> Path:
    """`npm ci --ignore-scripts` of tests/images/<kind>/ into `stage`; return node_modules."""
    need_tools("npm")
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(HERE / kind / name, stage / name)
    log = CACHE / "logs" / f"npm-{kind}.log"
    say(f"{kind}: npm ci --ignore-scripts (log {log})")
    run(
        [
            "npm",
            "ci",
            "--ignore-scripts",
            "--no-audit",
            "--no-fund",
            "--prefer-offline",
            "--cache",
            str(CACHE / "npm"),
        ],
        log=log,
        cwd=stage,
        env={"NPM_CONFIG_UPDATE_NOTIFIER": "false", "NODE_ENV": "production"},
    )
    return stage / "node_modules"


ROOTFS_OF = {"python": ("python", "python/packages.txt"), "node": ("node", "node/packages.txt")}
ROOTFS_OF["bun"] = ROOTFS_OF["node"]
ROOTFS_OF["go"] = ("go", "go/packages.txt")


def prefetch_rootfs(names: Sequence[str], *, force: bool) -> None:
    """Build the Debian root filesystems `names` need, two at a time (mostly I/O and dpkg)."""
    kinds = sorted({ROOTFS_OF[n] for n in names if n in ROOTFS_OF})
    if len(kinds) < 2:
        return  # nothing to overlap: build() makes it
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(kinds)) as pool:
        futures = [pool.submit(debian_rootfs, kind, rel, force=force) for kind, rel in kinds]
        errors = [f.exception() for f in futures if f.exception() is not None]
    if errors:
        raise BuildError("; ".join(str(e) for e in errors))
