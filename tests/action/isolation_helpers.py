"""A copy of the action with its host isolation taken out: the positive control that the
host-isolation tests of tests/action and tests/act share."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.action.helpers import ROOT

# The files a copy of the action needs to install and run.
ACTION_FILES = ("action.yml", "publish", "entrypoint", "scripts", "src", "requirements")
ACTION_FILES += ("pyproject.toml", "README.md")


def strip_isolation(dest: Path) -> Path:
    """A copy of the action with the isolation taken out: no -I, no working-directory."""
    dest.mkdir()
    for name in ACTION_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, dest / name)
    edits = {
        "action.yml": [(r"\n\s*working-directory:[^\n]*", ""), (r" -I -m ", " -m ")],
        "publish/action.yml": [(r"\n\s*working-directory:[^\n]*", ""), (r" -I -m ", " -m ")],
        "entrypoint": [(r" -I -m ", " -m ")],
        "scripts/action_install.sh": [(r" -I ", " ")],
        "src/verify_pr/action/commands.py": [(r'"-I", ', "")],
    }
    for name, substitutions in edits.items():
        path = dest / name
        text = original = path.read_text(encoding="utf-8")
        for pattern, replacement in substitutions:
            text = re.sub(pattern, replacement, text)
        assert text != original, f"nothing to strip in {name}: the control would prove nothing"
        path.write_text(text, encoding="utf-8")
    return dest
