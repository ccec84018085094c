"""What the go runner's tests and bench share: the Go fixture modules, the hostile ones among
them, the Debian golang-*-dev packages of the corpus (tests/corpus/manifest.json
"debian_go"), fetched with apt-get and checked by sha256, and the Debian source files of the
Go history pairs ("go_history"), fetched from the pool of the host's Debian archive and
checked by sha256."""

from __future__ import annotations

import shutil
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.images.buildlib.rootfs import host_archives
from tests.integration.helpers import CACHE, pinned, unpack

GO_IMAGE = "verify-pr-go:local"
# the one-bug module the go compare tests share (package calc: Add is wrong on base)
GO_MOD = "module example.com/calc\n\ngo 1.22\n"
CALC_BUGGY = (
    "package calc\n\n"
    "// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n\n"
    "// Mul returns a*b.\nfunc Mul(a, b int) int { return a * b }\n"
)
CALC_FIXED = CALC_BUGGY.replace("return a - b", "return a + b")
MUL_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(Mul(2, 3))\n\t}\n}\n"
)
ADD_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n"
    '\t\tt.Fatalf("Add(2, 3) = %d", got)\n\t}\n}\n'
)
GO_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "go"
# tests/hostile/test_go_forgery.py: fixture -> the test that fails for real and prints its pass
GO_ATTACKS = {
    "forged_framing": "TestAdd",
    "forged_events": "TestAdd",
    "exit0": "TestWrong",
    "exit0_flag": "TestWrong",
    "exit0_goroutine": "TestWrong",
    "testmain_exit0": "TestWrong",
}


def fetch_deb(entry: dict[str, Any]) -> Path:
    """The .deb, downloaded once into the cache with apt-get, checked against its sha256."""
    CACHE.mkdir(parents=True, exist_ok=True)
    deb = CACHE / entry["file"]
    if not deb.exists():
        subprocess.run(
            [
                "apt-get",
                "download",
                "-q",
                "-o",
                "APT::Sandbox::User=root",
                f"{entry['package']}={entry['version']}",
            ],
            cwd=CACHE,
            capture_output=True,
            timeout=300,
            check=True,
        )
    return pinned(deb, entry["sha256"])


def module_tree(entry: dict[str, Any], dest: Path) -> Path:
    """The module's source as the package ships it (dpkg-deb -x, nothing run)."""
    unpacked = dest / "deb"
    subprocess.run(
        ["dpkg-deb", "-x", str(fetch_deb(entry)), str(unpacked)], check=True, timeout=120
    )
    tree = dest / "src"
    shutil.copytree(unpacked / entry["module"], tree, symlinks=True)
    for path in [tree, *tree.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)
    return tree


def pool_url(source: str, file: str) -> str:
    """``file`` of Debian source package ``source`` in the pool of the host's Debian archive
    (apt's index targets name it: no mirror is written here). The pool is shared by every
    suite, so one address serves an old stable's file and a newer one's alike."""
    archive, _ = host_archives()
    if not archive.startswith(("http://", "https://")):
        pytest.fail(f"the host's Debian archive {archive} is not an http(s) address")
    prefix = source[:4] if source.startswith("lib") else source[0]
    return f"{archive.rstrip('/')}/pool/main/{prefix}/{source}/{file}"


def fetch_source(source: str, part: dict[str, Any]) -> Path:
    """One file of a source package (an .orig.tar or a .debian.tar), downloaded once into the
    cache, checked against its sha256."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / part["file"]
    if not path.exists():
        partial = path.with_name(path.name + ".part")
        url = pool_url(source, part["file"])
        # S310: an http(s) address (pool_url refuses any other scheme)
        with urllib.request.urlopen(url, timeout=300) as response, partial.open("wb") as fh:  # noqa: S310
            shutil.copyfileobj(response, fh)
        partial.rename(path)
    return pinned(path, part["sha256"])


def source_trees(entry: dict[str, Any], dest: Path) -> tuple[Path, Path]:
    """A Go history pair's two trees: base is its .orig tarball unpacked; head is another
    .orig tarball unpacked, or base's with the named patches of a .debian.tar applied in order
    (``git apply``, outside any repository)."""
    base = unpack(fetch_source(entry["source"], entry["base"]), dest / "base-src")
    head_part = entry["head"]
    if "patches" not in head_part:
        head = unpack(fetch_source(entry["source"], head_part), dest / "head-src")
        return base, head
    head = dest / "head-src" / base.name
    shutil.copytree(base, head, symlinks=True)
    debian = unpack(fetch_source(entry["source"], head_part), dest / "debian-src")
    for name in head_part["patches"]:
        patch = debian / "patches" / name
        subprocess.run(["git", "apply", "-p1", str(patch)], cwd=head, check=True, timeout=60)
    return base, head
