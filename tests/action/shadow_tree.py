"""A hostile checkout that shadows every module a host-side Python of the actions could import.

Each shadow is a package ``<name>/`` (``__init__.py`` and ``__main__.py``) that appends its name
to a marker file outside the tree when imported; nothing else. The names are not a hand-made
list: every stdlib module name (``sys.stdlib_module_names``) and every top-level module that the
actions' host processes import (``sys.modules`` of an interpreter that imports each entry point,
pip and venv), plus the names Python looks up by convention (``sitecustomize``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# What the host processes of both actions import: the entry points, pip (install) and venv.
HOST_IMPORTS = (
    "verify_pr.action",
    "verify_pr.publish.main",
    "verify_pr.verify.cli",
    "verify_pr.sandbox.cli",
    "pip._internal.cli.main",
    "venv",
    "ensurepip",
)
CONVENTIONAL = ("sitecustomize", "usercustomize", "verify_pr", "pip", "setuptools", "wheel")
MARKER_CODE = """\
try:
    with open({marker!r}, "a", encoding="utf-8") as _marker:
        _marker.write(__name__ + "\\n")
except OSError:
    pass
"""


def host_module_names() -> set[str]:
    """Top-level names in ``sys.modules`` of a fresh interpreter importing every host entry."""
    code = (
        "import importlib, sys\n"
        f"for name in {HOST_IMPORTS!r}:\n"
        "    importlib.import_module(name)\n"
        "print('\\n'.join(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    return {line.partition(".")[0] for line in done.stdout.split()}


def shadow_names() -> list[str]:
    names = set(sys.stdlib_module_names) | host_module_names() | set(CONVENTIONAL)
    return sorted(n for n in names if n.isidentifier() and n != "__main__")


def plant_shadows(tree: Path, marker: Path) -> list[str]:
    """Write a shadow package for every name into ``tree``; returns the names."""
    code = MARKER_CODE.format(marker=str(marker))
    names = shadow_names()
    for name in names:
        package = tree / name
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text(code, encoding="utf-8")
        (package / "__main__.py").write_text(code, encoding="utf-8")
    return names


def markers(marker: Path) -> list[str]:
    return marker.read_text(encoding="utf-8").split() if marker.exists() else []
