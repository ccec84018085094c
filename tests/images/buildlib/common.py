"""What every step of the image build shares: paths, recipes, errors, running commands.

The recipe hash (``Recipe.digest``) covers ``build.py`` and every module of this package, so
editing any of the build's code gives every image a new tag.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # tests/images/
CACHE = Path(os.environ.get("VERIFY_PR_IMAGES_CACHE", "/var/cache/verify-pr-images"))
SUITE = "bookworm"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
MINIMAL_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
NODE_PATH = SYSTEM_PATH + ":/node_modules/.bin"
MERGED_USR_HOOKS = Path("/usr/share/mmdebstrap/hooks/merged-usr")
ROOTFS_KEEP = 3  # cached root filesystems kept per kind (other worktrees may use older ones)
IMAGES_KEEP = 3  # recipe-hash tags kept per image, the current one included
TOOLS = "sh timeout env cp head cat wc kill sleep mkdir chmod rm ls"
IMAGES = ("minimal", "python", "node", "bun", "go")
ID_AND_TAGS = "{{.Id}}{{range .RepoTags}} {{.}}{{end}}"
# The build's own code, hashed into every recipe (sorted: the hash must not depend on listing order)
LIB_SOURCES = tuple(sorted(f"buildlib/{p.name}" for p in (HERE / "buildlib").glob("*.py")))


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
        for rel in ("build.py", *LIB_SOURCES, *self.inputs):
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
    "go": Recipe(
        "go",
        ("debian/customize.sh", "go/packages.txt", "go/requirements.txt", "go/go.env"),
        SYSTEM_PATH,
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
