"""Real published projects (tests/corpus/manifest.json): ``verify-pr run`` must agree with the
runner run directly in the same image, verdict and per-test counts."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_docker
from tests.integration.test_verify_runners import counts, verify_pr

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = json.loads((ROOT / "corpus" / "manifest.json").read_text())
CACHE = ROOT / ".cache" / "corpus"
PYTHON_IMAGE = "verify-pr-python:local"
_SUMMARY_WORD = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def fetch(entry: dict[str, Any]) -> Path:
    """The sdist, downloaded once into the cache with pip, checked against its pinned sha256."""
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / entry["file"]
    if not archive.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(CACHE),
                f"{entry['name']}=={entry['version']}",
            ],
            capture_output=True,
            timeout=300,
            check=True,
        )
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != entry["sha256"]:
        archive.unlink()
        pytest.fail(f"{archive.name}: sha256 {digest} is not the pinned {entry['sha256']}")
    return archive


def unpack(archive: Path, dest: Path) -> Path:
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
    (tree,) = [p for p in dest.iterdir() if p.is_dir()]
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return tree


def direct_pytest(
    tree: Path, src_layout: bool = False
) -> tuple[int, tuple[int, int, int, int, int]]:
    """pytest itself, in the same image and lockdown, counted from its own summary line; a src
    layout runs as after an editable install (/work/src on the path)."""
    path = "PYTHONPATH=/work/src " if src_layout else ""
    script = (
        "cp -R /repo/. /work/ && cd /work && "
        f"{path}python3 -m pytest -p no:cacheprovider -q -o junit_family=xunit1 2>&1 | tail -n 3"
    )
    proc = subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "--network",
            "none",
            "--user",
            "65534:65534",
            "--read-only",
            "--tmpfs",
            "/work:exec,size=256m,uid=65534,gid=65534",
            "--tmpfs",
            "/tmp:size=64m",
            "-e",
            "HOME=/work",
            "-v",
            f"{tree}:/repo:ro",
            PYTHON_IMAGE,
            "sh",
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    last = proc.stdout.strip().splitlines()[-1]
    found = {word.rstrip("s"): int(n) for n, word in _SUMMARY_WORD.findall(last)}
    assert found, proc.stdout + proc.stderr
    passed = found.get("passed", 0) + found.get("xpassed", 0)
    failed = found.get("failed", 0)
    error = found.get("error", 0)
    skipped = found.get("skipped", 0) + found.get("xfailed", 0)
    return proc.returncode, (passed + failed + error + skipped, passed, failed, error, skipped)


@pytest.mark.slow
@pytest.mark.parametrize("entry", MANIFEST["pypi"], ids=lambda e: f"{e['name']}-{e['version']}")
def test_pypi_sdist_matches_pytest(entry: dict[str, Any], tmp_path: Path) -> None:
    require_docker(PYTHON_IMAGE)
    tree = unpack(fetch(entry), tmp_path / "src")
    src_layout = bool(entry.get("src_layout"))
    _, expected = direct_pytest(tree, src_layout)
    run = verify_pr(tree, PYTHON_IMAGE, tmp_path / "out", "--runner", "pytest", "--timeout", "300")
    v = run.verdict
    assert ("PYTHONPATH=/work/src " in v["command"]) == src_layout, v["command"]
    assert counts(v) == expected, v.get("reasons")
    direct_ok = expected[2] == expected[3] == 0 and expected[0] > expected[4]
    assert v["verdict"] == ("PASS" if direct_ok else "FAIL"), v["reasons"]
    assert run.code == (0 if direct_ok else 1)


@pytest.mark.slow
def test_broken_src_tree_with_the_good_package_in_the_image_is_never_pass(
    tmp_path: Path,
) -> None:
    # pluggy is src layout and the image holds an unbroken pluggy (pytest's own dependency).
    # Broken in the tree, it must never PASS: the run imports the tree's copy, not the image's.
    require_docker(PYTHON_IMAGE)
    (entry,) = [e for e in MANIFEST["pypi"] if e["name"] == "pluggy"]
    tree = unpack(fetch(entry), tmp_path / "src")
    manager = tree / "src" / "pluggy" / "_manager.py"
    text = manager.read_text()
    marker = "    def register(self, plugin: _Plugin, name: str | None = None) -> str | None:\n"
    assert marker in text
    manager.write_text(text.replace(marker, marker + "        raise RuntimeError('broken')\n"))
    run = verify_pr(tree, PYTHON_IMAGE, tmp_path / "out", "--runner", "pytest", "--timeout", "300")
    reasons = run.verdict["reasons"]
    assert run.verdict["verdict"] != "PASS" and run.code != 0, reasons
    # The tree's copy ran (pytest itself registers plugins through it): its error is named.
    assert any("RuntimeError: broken" in r for r in reasons), reasons
    # Control: the unbroken tree is PASS with the direct run's counts (the parametrized test).
