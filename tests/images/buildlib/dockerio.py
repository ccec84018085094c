"""Docker steps of the image build: import a root filesystem tar, tar helpers, smoke checks."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from .common import ID_AND_TAGS, TOOLS, BuildError, Recipe, run

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


def locked_run_argv(
    image: str,
    *command: str,
    read_only: bool = True,
    tmpfs: Sequence[str] = (),
    options: Sequence[str] = (),
) -> list[str]:
    """The bare, locked ``docker run`` of `command` in `image`, written once for every run
    outside the sandbox runner (these smoke checks, the corpus tests' direct runner runs, the
    benchmarks' bare baseline): no network, the sandbox's user 65534, every capability dropped,
    no privilege gain, a read-only root unless `read_only` is false. Each of `tmpfs`
    (``PATH[:OPTIONS]``) is mounted in order; `options` (``-e``, ``-v``, ``--workdir``) come
    last before the image."""
    argv = [
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
        argv.append("--read-only")
    for mount in tmpfs:
        argv += ["--tmpfs", mount]
    return [*argv, *options, image, *command]


def docker_run(image: str, script: str, *, read_only: bool = True, tmpfs: bool = True) -> str:
    """`script` in `image` as a locked run; with `tmpfs`, a tmpfs /tmp and /work, in /work."""
    mounts = ("/tmp", "/work:exec,uid=65534,gid=65534") if tmpfs else ()
    workdir = ("--workdir", "/work") if tmpfs else ()
    argv = locked_run_argv(
        image, "/bin/sh", "-c", script, read_only=read_only, tmpfs=mounts, options=workdir
    )
    return run(argv).strip()


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
        # The brief's command: no read-only root, no tmpfs (the locks every run here has).
        pytest_version = locked_run_argv(
            image_id, "python3", "-m", "pytest", "--version", read_only=False
        )
        versions.append(run(pytest_version).strip())
        versions.append(docker_run(image_id, PYTHON_CHECK))
    elif recipe.name == "node":
        versions.append(docker_run(image_id, NODE_CHECK))
    elif recipe.name == "bun":
        versions.append(docker_run(image_id, BUN_CHECK))
    elif recipe.name == "go":
        versions.append(docker_run(image_id, GO_CHECK))
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

# The toolchain's settings come from its go.env (the image has no ENV but PATH), and a module
# with one passing test runs offline with the JSON report, framed (Go >= 1.20).
GO_CHECK = r"""
set -eu
go version
test "$(go env GOTOOLCHAIN GOPROXY GOFLAGS GOCACHE CGO_ENABLED | tr '\n' ' ')" \
    = "local off -mod=mod /tmp/go-build 0 "
# the seed cache holds the testing package's build, as the runner uses it (a copy)
cp -R /usr/local/lib/go-cache/. /tmp/go-build/
test "$(go list -f '{{.Stale}}' testing encoding/json)" = "$(printf 'false\nfalse')"
# /tmp is noexec in the sandbox (and here): test binaries are built and run from /work.
mkdir .gotmp m && export GOTMPDIR=/work/.gotmp && cd m
printf 'module example.com/m\n\ngo 1.22\n' > go.mod
printf 'package m\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n' > m_test.go
printf '\tif 1+1 != 2 {\n\t\tt.Fatal("sum")\n\t}\n}\n' >> m_test.go
go test -json -count=1 ./... >/tmp/r.json 2>/tmp/log || { cat /tmp/log /tmp/r.json; exit 1; }
grep -q '"Action":"pass","Package":"example.com/m","Test":"TestAdd"' /tmp/r.json
"""
