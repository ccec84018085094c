#!/usr/bin/env python3
"""Build verify-pr's local Docker test images from local files only (no registry pull).

    python3 tests/images/build.py [--no-check] [minimal|python|node|bun|all ...]

Each image is tagged ``verify-pr-<name>:<recipe hash>`` and ``verify-pr-<name>:local``. The
hash covers this script and the image's recipe files (package lists, npm lockfile, hooks).
When ``<name>:<hash>`` exists the script only (re)tags ``:local``. Downloaded .debs, the npm
cache and the Debian root filesystems stay in /var/cache/verify-pr-images
(``VERIFY_PR_IMAGES_CACHE`` overrides it). After a build it smoke-checks the image unless
``--no-check``; an image that fails its check is removed and never tagged.

Debian sources are derived at run time from the host's own apt configuration, so no mirror
host is written down anywhere in the repository. Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import fcntl
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("VERIFY_PR_IMAGES_CACHE", "/var/cache/verify-pr-images"))
SUITE = "bookworm"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
MINIMAL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
NODE_PATH = SYSTEM_PATH + ":/node_modules/.bin"
MERGED_USR_HOOKS = Path("/usr/share/mmdebstrap/hooks/merged-usr")
ROOTFS_KEEP = 3  # cached root filesystems kept per kind (other worktrees may use older ones)
IMAGES_KEEP = 3  # recipe-hash tags kept per image, the current one included
TOOLS = "sh timeout env cp head cat wc kill sleep mkdir chmod rm ls"
IMAGES = ("minimal", "python", "node", "bun")
ID_AND_TAGS = "{{.Id}}{{range .RepoTags}} {{.}}{{end}}"

# Run by every smoke check as uid 65534 on a read-only root: the tools the sandbox's wrapper
# relies on are real executables on PATH, nobody/nogroup exist, the mount points are empty.
COMMON_CHECK = f"""
fail=0
for t in {TOOLS}; do
    found=
    IFS=:
    for d in $PATH; do
        if [ -f "$d/$t" ] && [ -x "$d/$t" ]; then found=$d/$t; break; fi
    done
    unset IFS
    [ -n "$found" ] || {{ echo "missing executable on PATH: $t"; fail=1; }}
done
grep -q '^nobody:[^:]*:65534:65534:' /etc/passwd || {{ echo 'no nobody 65534'; fail=1; }}
grep -q '^nogroup:[^:]*:65534:' /etc/group || {{ echo 'no nogroup 65534'; fail=1; }}
for d in /work /cap /tmp /repo; do
    if [ ! -d "$d" ] || [ -n "$(ls -A "$d")" ]; then echo "$d is missing or not empty"; fail=1; fi
done
timeout 5 sleep 0 || {{ echo 'timeout does not run'; fail=1; }}
exit $fail
"""


class BuildError(Exception):
    """Any failure: reported on stderr, exit status 1."""


@dataclass(frozen=True)
class Recipe:
    name: str
    inputs: tuple[str, ...]  # files under tests/images/ that define the image
    path: str  # the image's only ENV
    extra: tuple[str, ...] = ()  # other things the image depends on (e.g. a CPU variant)

    @property
    def repo(self) -> str:
        return f"verify-pr-{self.name}"

    def digest(self) -> str:
        h = hashlib.sha256()
        for rel in ("build.py", *self.inputs):
            data = (HERE / rel).read_bytes()
            h.update(f"{rel}\0{len(data)}\0".encode())
            h.update(data)
        for item in (f"PATH={self.path}", f"suite={SUITE}", *self.extra):
            h.update(f"{item}\0".encode())
        return h.hexdigest()[:16]


# --------------------------------------------------------------------------- small helpers

T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[images {time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def short(cmd: Sequence[str]) -> str:
    """A command line for an error message: multi-line scripts are cut to their first line."""
    text = shlex.join(cmd)
    return text if len(text) <= 300 and "\n" not in text else text.split("\n")[0][:300] + " ..."


def run(
    cmd: Sequence[str],
    *,
    log: Path | None = None,
    input_text: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> str:
    """Run a command; return its stdout. With `log`, stdout and stderr go to that file."""
    full_env = None if env is None else {**os.environ, **env}
    if log is None:
        proc = subprocess.run(
            list(cmd),
            input=input_text,
            capture_output=True,
            text=True,
            cwd=cwd,
            env=full_env,
        )
        if proc.returncode != 0:
            raise BuildError(
                f"{short(cmd)} exited {proc.returncode}\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
            )
        return proc.stdout
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as fh:
        proc = subprocess.run(
            list(cmd),
            input=input_text,
            stdout=fh,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=cwd,
            env=full_env,
        )
    if proc.returncode != 0:
        tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-40:])
        raise BuildError(f"{short(cmd)} exited {proc.returncode}; log {log}:\n{tail}")
    return ""


def need_tools(*names: str) -> None:
    missing = [n for n in names if shutil.which(n) is None]
    if missing:
        raise BuildError(
            f"missing host tools: {' '.join(missing)} "
            "(apt-get install docker.io busybox-static mmdebstrap nodejs npm)"
        )


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def has_avx2() -> bool:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return "avx2" in line.split()
    return False


BUN_PACKAGE = "@oven/bun-linux-x64" if has_avx2() else "@oven/bun-linux-x64-baseline"

RECIPES: dict[str, Recipe] = {
    "minimal": Recipe("minimal", (), MINIMAL_PATH),
    "python": Recipe(
        "python",
        ("debian/customize.sh", "python/packages.txt"),
        SYSTEM_PATH,
    ),
    "node": Recipe(
        "node",
        ("debian/customize.sh", "node/packages.txt", "node/package.json", "node/package-lock.json"),
        NODE_PATH,
    ),
    "bun": Recipe(
        "bun",
        ("debian/customize.sh", "node/packages.txt", "bun/package.json", "bun/package-lock.json"),
        SYSTEM_PATH,
        (f"bun={BUN_PACKAGE}",),
    ),
}


@contextlib.contextmanager
def cache_lock() -> Iterator[None]:
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / ".lock").open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another build holding {CACHE / '.lock'}")
            fcntl.flock(fh, fcntl.LOCK_EX)
        yield


# --------------------------------------------------------------------------- docker


def docker_tags(refs: Sequence[str]) -> dict[str, str]:
    """Map each of `refs` that exists locally to its image id (one docker call)."""
    proc = subprocess.run(
        ["docker", "image", "inspect", "--format", ID_AND_TAGS, *refs],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0 and "no such image" not in proc.stderr.lower():
        raise BuildError(f"docker image inspect failed: {proc.stderr.strip()}")
    found: dict[str, str] = {}
    for line in proc.stdout.splitlines():
        if not line.strip():
            continue
        image_id, *tags = line.split()
        for tag in tags:
            if tag in refs:
                found[tag] = image_id
    return found


def docker_import(
    recipe: Recipe,
    digest: str,
    write: Callable[[tarfile.TarFile], None],
) -> str:
    """Stream a root filesystem tar, written by `write`, into `docker import`; return the id."""
    changes = [
        f"ENV PATH={recipe.path}",
        f"LABEL org.verify-pr.image={recipe.repo} org.verify-pr.recipe={digest}",
    ]
    cmd = ["docker", "import"]
    for change in changes:
        cmd += ["--change", change]
    cmd.append("-")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=err)
        assert proc.stdin is not None
        try:
            with tarfile.open(fileobj=proc.stdin, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                write(tar)
        except BrokenPipeError:
            pass  # docker import died: its exit status and stderr say why
        finally:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
        rc = proc.wait()
        out.seek(0)
        err.seek(0)
        if rc != 0:
            raise BuildError(f"docker import exited {rc}: {err.read().decode(errors='replace')}")
        image_id = out.read().decode().strip()
    if not re.fullmatch(r"sha256:[0-9a-f]{64}", image_id):
        raise BuildError(f"docker import printed no image id: {image_id!r}")
    return image_id


def copy_tar(src_path: Path, tar: tarfile.TarFile) -> None:
    with tarfile.open(src_path, mode="r|") as src:
        for member in src:
            tar.addfile(member, src.extractfile(member) if member.isreg() else None)


def add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int, mtime: int) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, mtime
    tar.addfile(info, io.BytesIO(data))


def add_dir(tar: tarfile.TarFile, name: str, mode: int, mtime: int) -> None:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.mtime = tarfile.DIRTYPE, mode, mtime
    tar.addfile(info)


def root_owned(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """Tar filter: root-owned, world-readable (and traversable where executable)."""
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mode |= 0o444 if not info.isdir() else 0o555
    if info.mode & 0o100:
        info.mode |= 0o111
    info.mode &= ~0o022
    return info


def docker_run(image: str, script: str, *, read_only: bool = True, tmpfs: bool = True) -> str:
    cmd = [
        "docker",
        "run",
        "--rm",
        "--network",
        "none",
        "--user",
        "65534:65534",
        "--cap-drop",
        "ALL",
        "--security-opt",
        "no-new-privileges",
    ]
    if read_only:
        cmd.append("--read-only")
    if tmpfs:
        cmd += [
            "--tmpfs",
            "/tmp",
            "--tmpfs",
            "/work:exec,uid=65534,gid=65534",
            "--workdir",
            "/work",
        ]
    return run([*cmd, image, "/bin/sh", "-c", script]).strip()


def check_image(recipe: Recipe, image_id: str) -> list[str]:
    """Smoke-check a freshly imported image; return the version lines it printed."""
    config = json.loads(
        run(["docker", "image", "inspect", "--format", "{{json .Config}}", image_id])
    )
    problems = []
    if config.get("Env") != [f"PATH={recipe.path}"]:
        problems.append(f"Env is {config.get('Env')}")
    for key in ("Entrypoint", "Volumes", "User", "Cmd", "WorkingDir"):
        if config.get(key):
            problems.append(f"{key} is {config.get(key)!r}")
    if problems:
        raise BuildError(f"{recipe.repo}: bad image config: {'; '.join(problems)}")
    docker_run(image_id, COMMON_CHECK, tmpfs=False)
    versions: list[str] = []
    if recipe.name == "minimal":
        versions.append(docker_run(image_id, "busybox | head -1"))
    elif recipe.name == "python":
        # The exact command the brief gives, without a read-only root or tmpfs.
        versions.append(
            run(
                [
                    "docker",
                    "run",
                    "--rm",
                    "--network",
                    "none",
                    "--user",
                    "65534:65534",
                    image_id,
                    "python3",
                    "-m",
                    "pytest",
                    "--version",
                ]
            ).strip()
        )
        versions.append(docker_run(image_id, PYTHON_CHECK))
    elif recipe.name == "node":
        versions.append(docker_run(image_id, NODE_CHECK))
    elif recipe.name == "bun":
        versions.append(docker_run(image_id, BUN_CHECK))
    return [line for v in versions for line in v.splitlines() if line.strip()]


PYTHON_CHECK = r"""
set -eu
python3 --version
python3 -c 'import setuptools, ensurepip, pip, wheel, zoneinfo; zoneinfo.ZoneInfo("Europe/Paris")'
python3 -m venv --without-pip /work/venv
/work/venv/bin/python -c 'import sys; assert sys.prefix != sys.base_prefix'
mkdir t && printf 'def test_ok():\n    assert 1 + 1 == 2\n' > t/test_ok.py
python3 -m pytest -q -p no:cacheprovider --junitxml=/tmp/r.xml t >/tmp/log 2>&1 \
    || { cat /tmp/log; exit 1; }
grep -q '<testcase' /tmp/r.xml
"""

NODE_CHECK = r"""
set -eu
echo "node $(node --version)"
echo "jest $(jest --version)"
echo "$(vitest --version)"
mkdir j v
echo '{"name": "j", "private": true}' > j/package.json
echo '{"name": "v", "private": true, "type": "module"}' > v/package.json
printf "test('adds', () => { expect(1 + 1).toBe(2); });\n" > j/sum.test.js
(cd j && jest --ci --json --outputFile=/tmp/jest.json >/tmp/log 2>&1) || { cat /tmp/log; exit 1; }
grep -q '"success":true' /tmp/jest.json
printf "import { test, expect } from 'vitest';\ntest('adds', () => { expect(1 + 1).toBe(2); });\n" \
    > v/sum.test.mjs
(cd v && vitest run --reporter=junit --outputFile.junit=/tmp/v.xml >/tmp/log 2>&1) \
    || { cat /tmp/log; exit 1; }
grep -q '<testcase' /tmp/v.xml
node -e 'require.resolve("jest"); require.resolve("vitest")'
"""

BUN_CHECK = r"""
set -eu
echo "bun $(bun --version)"
printf "import { test, expect } from 'bun:test';\n" > sum.test.ts
printf "test('adds', () => { expect(1 + 1).toBe(2); });\n" >> sum.test.ts
bun test --reporter=junit --reporter-outfile=/tmp/r.xml >/tmp/log 2>&1 || { cat /tmp/log; exit 1; }
grep -q '<testcase' /tmp/r.xml
"""


# --------------------------------------------------------------------------- inputs


def busybox_deb() -> Path:
    """Debian's busybox-static .deb, downloaded once into the cache."""
    dest = CACHE / "busybox"
    dest.mkdir(parents=True, exist_ok=True)
    cmd = ["apt-get", "download", "--print-uris", "busybox-static"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not proc.stdout.strip():
        say("apt lists have no busybox-static: running apt-get update")
        run(["apt-get", "update", "-qq"])
        proc = subprocess.run(cmd, capture_output=True, text=True)
    fields = proc.stdout.split()
    if proc.returncode != 0 or len(fields) < 4 or not fields[3].startswith("SHA256:"):
        raise BuildError(f"cannot locate busybox-static: {proc.stdout}{proc.stderr}")
    deb, want = dest / fields[1], fields[3].removeprefix("SHA256:")
    if not (deb.is_file() and sha256_file(deb) == want):
        say(f"downloading {fields[1]}")
        run(
            ["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", "busybox-static"],
            cwd=dest,
        )
        if sha256_file(deb) != want:
            raise BuildError(f"{deb}: SHA256 mismatch")
    return deb


def host_sources() -> str:
    """One-line apt sources for SUITE, taken from the host's Debian index targets."""
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
            break
        if attempt == 0:
            say("no Debian index targets on the host: running apt-get update")
            run(["apt-get", "update", "-qq"])
    if not archive:
        raise BuildError("the host's apt configuration has no Debian archive to build from")
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


# --------------------------------------------------------------------------- the images


def write_minimal(tar: tarfile.TarFile) -> None:
    need_tools("apt-get", "dpkg-deb")
    deb = busybox_deb()
    with tempfile.TemporaryDirectory() as tmp:
        binary = Path(tmp) / "busybox"
        proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
        assert proc.stdout is not None
        mtime = 0
        with tarfile.open(fileobj=proc.stdout, mode="r|") as debtar:
            for member in debtar:
                if member.name in ("./bin/busybox", "bin/busybox") and member.isreg():
                    src = debtar.extractfile(member)
                    assert src is not None
                    binary.write_bytes(src.read())
                    mtime = int(member.mtime)
                    break
        proc.stdout.close()
        proc.wait()
        if not binary.is_file():
            raise BuildError(f"{deb.name} has no bin/busybox")
        binary.chmod(0o755)
        applets = run([str(binary), "--list-full"]).split()
        if "sh" not in {a.rsplit("/", 1)[-1] for a in applets}:
            raise BuildError("busybox has no sh applet")
        data = binary.read_bytes()
    dirs = {
        "bin": 0o755,
        "sbin": 0o755,
        "usr": 0o755,
        "usr/bin": 0o755,
        "usr/sbin": 0o755,
        "etc": 0o755,
        "dev": 0o755,
        "proc": 0o555,
        "sys": 0o555,
        "root": 0o700,
        "tmp": 0o1777,
        "work": 0o755,
        "cap": 0o755,
        "repo": 0o755,
    }
    for applet in applets:
        parent = applet.rsplit("/", 1)[0] if "/" in applet else ""
        if parent and parent not in dirs:
            raise BuildError(f"busybox applet in an unexpected directory: {applet}")
    for name, mode in dirs.items():
        add_dir(tar, name, mode, mtime)
    add_bytes(tar, "bin/busybox", data, 0o755, mtime)
    for applet in sorted(set(applets) - {"bin/busybox", "linuxrc"}):
        info = tarfile.TarInfo(applet)
        info.type, info.linkname = tarfile.SYMTYPE, "/bin/busybox"
        info.mode, info.mtime = 0o777, mtime
        tar.addfile(info)
    add_bytes(
        tar,
        "etc/passwd",
        b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
        0o644,
        mtime,
    )
    add_bytes(tar, "etc/group", b"root:x:0:\nnogroup:x:65534:\n", 0o644, mtime)
    say(f"minimal: busybox {deb.name.split('_')[1].replace('%3a', ':')}, {len(applets)} applets")


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


ROOTFS_OF = {"python": ("python", "python/packages.txt"), "node": ("node", "node/packages.txt")}
ROOTFS_OF["bun"] = ROOTFS_OF["node"]


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
