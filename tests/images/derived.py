#!/usr/bin/env python3
"""Images derived from a built one: its root filesystem plus wheels from PyPI, pinned by sha256.

    python3 tests/images/derived.py python-packaging

A history pair whose suite imports more than the python image holds (packaging's imports
hypothesis, pretend and tomli-w) runs in such an image. Its recipe is a pip requirements file
with a hash per wheel (``<name>/requirements.txt``); the wheels are downloaded with
``pip download --require-hashes`` (no dependency resolution: the file lists every one),
unzipped as pip would install them and copied over the base image's dist-packages by a
``docker build`` that pulls nothing (its FROM is the local base image). The image is tagged
``verify-pr-<name>:<hash>`` and ``:local``, the hash over this file, the requirements and the
base image's id, so a rebuilt base or an edited list gives a new tag; an existing tag is only
re-tagged ``:local``. Kept out of ``build.py`` and ``buildlib/``: their hash is every image's,
and an image only one test needs should not rebuild the others.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DIST_PACKAGES = "/usr/local/lib/python3.11/dist-packages"
# the wheels' target: the python image's interpreter, whatever the host runs
WHEEL_TARGET = (
    "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311",
    "--platform", "manylinux2014_x86_64", "--platform", "any",
)  # fmt: skip


@dataclass(frozen=True)
class Derived:
    name: str
    base: str  # the image it starts from, as tests name it

    @property
    def requirements(self) -> Path:
        return HERE / self.name / "requirements.txt"

    @property
    def repo(self) -> str:
        return f"verify-pr-{self.name}"


DERIVED = {"python-packaging": Derived("python-packaging", "verify-pr-python:local")}


def _image_id(ref: str) -> str | None:
    proc = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Id}}", ref], capture_output=True, text=True
    )
    return proc.stdout.strip() if proc.returncode == 0 else None


def digest(recipe: Derived, base_id: str) -> str:
    h = hashlib.sha256()
    for data in (Path(__file__).read_bytes(), recipe.requirements.read_bytes(), base_id.encode()):
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()[:16]


def ensure(name: str) -> str:
    """``verify-pr-<name>:local``, built when its recipe hash has no image yet; the ref."""
    recipe = DERIVED[name]
    base_id = _image_id(recipe.base)
    if base_id is None:
        raise RuntimeError(f"{recipe.base} is missing: build it first (tests/images/build.py)")
    tag = f"{recipe.repo}:{digest(recipe, base_id)}"
    if _image_id(tag) is None:
        _build(recipe, tag)
    subprocess.run(["docker", "tag", tag, f"{recipe.repo}:local"], check=True)
    return f"{recipe.repo}:local"


def _build(recipe: Derived, tag: str) -> None:
    with tempfile.TemporaryDirectory(prefix=f"{recipe.name}-") as tmp:
        wheels, site = Path(tmp) / "wheels", Path(tmp) / "site"
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary"]
        pip += [":all:", "--require-hashes", *WHEEL_TARGET, "-d", str(wheels)]
        subprocess.run([*pip, "-r", str(recipe.requirements)], check=True, timeout=600)
        for wheel in sorted(wheels.glob("*.whl")):
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(site)
        for path in [site, *site.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (Path(tmp) / "Dockerfile").write_text(f"FROM {recipe.base}\nCOPY site/ {DIST_PACKAGES}/\n")
        subprocess.run(["docker", "build", "-q", "-t", tag, tmp], check=True, timeout=600)


if __name__ == "__main__":
    for chosen in sys.argv[1:] or sorted(DERIVED):
        print(ensure(chosen))
