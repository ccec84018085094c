"""The hostile table in docs/hostile.md lists exactly the hostile suite's test ids."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_hostile_table_is_in_sync_with_the_suite() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "hostile_table.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
