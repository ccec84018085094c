"""The go toolchain as every command runs it: offline, never another toolchain, no
configuration file, its caches on /work."""

from __future__ import annotations

import shlex

from verify_pr.contract import WORK_DIR
from verify_pr.runners.base import validate_report_path

SCRATCH = f"{WORK_DIR}/.verify-pr-go"
# The image's build cache of the standard library's common packages (tests/images: verify-pr-go
# compiles them at build time), copied into the run's own cache when the image has one.
SEED_CACHE = "/usr/local/lib/go-cache"
# The toolchain's settings, spelled out on every command (the image's go.env says the same
# but for the scratch paths): no network and no module fetch, never another toolchain, no
# configuration file, pure-Go builds (no C compiler in the image).
ENVIRONMENT: tuple[tuple[str, str], ...] = (
    ("GOTOOLCHAIN", "local"),
    ("GOFLAGS", "-mod=mod"),
    ("GOPROXY", "off"),
    ("GOSUMDB", "off"),
    ("GONOSUMDB", "*"),
    ("GOTELEMETRY", "off"),
    # The build cache (a cold one holds some 60 MB for the testing package alone) and the
    # directory where the go command links each test binary and runs it: on /work, which is
    # larger than /tmp and not noexec; a directory starting with "." is never one of ./...'s
    # packages.
    ("GOCACHE", f"{SCRATCH}/cache"),
    ("GOTMPDIR", f"{SCRATCH}/tmp"),  # noqa: S108 (on /work, in the container)
    ("GOPATH", f"{SCRATCH}/path"),
    ("GOENV", "off"),
    ("CGO_ENABLED", "0"),
)


def go_argv(*args: str) -> list[str]:
    """``env NAME=VALUE... go ARGS``: the go command with the settings above."""
    return ["env", *(f"{k}={v}" for k, v in ENVIRONMENT), "go", *args]


def prepare() -> str:
    """Make the scratch directories, seeded with the image's build cache."""
    env = dict(ENVIRONMENT)
    dirs = shlex.join([env["GOCACHE"], env["GOTMPDIR"]])
    seed = f"{{ [ ! -d {SEED_CACHE} ] || cp -R {SEED_CACHE}/. {shlex.quote(env['GOCACHE'])}/; }}"
    return f"mkdir -p {dirs} && {seed}"


def go_shell(argv: list[str], report_path: str) -> str:
    """The shell command: make the scratch directories, run ``argv``, its stdout to the report
    path."""
    path = validate_report_path(report_path)
    return f"{prepare()} && {shlex.join(argv)} > {path}"
