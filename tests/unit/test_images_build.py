"""tests/images/build.py imports its steps once, by their full name (tests.images.buildlib),
whether it runs as a script (as scripts/test.sh and CI call it) or is imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.images import build
from tests.images.buildlib import common, dockerio

SCRIPT = Path(build.__file__)


def test_run_as_a_script_from_elsewhere_it_imports_its_steps(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: build.py")


def test_imported_it_offers_the_steps_modules_own_names() -> None:
    assert build.RECIPES is common.RECIPES
    assert build.check_image is dockerio.check_image
    assert set(build.__all__) <= set(vars(build))
