"""The minimal image: Debian's static busybox alone, FROM scratch."""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from pathlib import Path

from .common import CACHE, BuildError, need_tools, run, say, sha256_file
from .dockerio import add_bytes, add_dir


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
