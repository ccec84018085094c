"""The README's pictures were made from the Markdown the code renders now (no drift)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _check() -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "readme_pictures.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


def test_pictures_markdown_matches_what_the_code_renders() -> None:
    proc = _check()
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_check_notices_a_stale_picture(tmp_path: Path) -> None:
    """Positive control: a changed Markdown source is reported stale."""
    source = ROOT / "docs" / "pictures" / "verified-check.md"
    original = source.read_bytes()
    try:
        source.write_bytes(original + b"\nstale\n")
        proc = _check()
    finally:
        source.write_bytes(original)
    assert proc.returncode == 1 and "verified-check.md" in proc.stderr
