"""The JS side of the import probe: where the tree's own package name resolves from /work.

A test that requires the package by its own name gets the tree only through Node's
self-reference (package.json ``exports``) or a link; otherwise Node walks up to /node_modules
and finds the copy the image holds. The probe (``require.resolve``: nothing is loaded) runs
before the suite; a resolution outside /work makes the verdict NOT PROVEN (see
:func:`python_tree.outside_the_tree`). A check for honest mistakes, as on the Python side.
"""

from __future__ import annotations

import re
from pathlib import Path

from verify_pr.contract import WORK_DIR
from verify_pr.runners import _files
from verify_pr.runners.base import PlannedCommand
from verify_pr.runners.pytest.tree import PROBE_TAG

# npm's package-name rules (lower case, optional scope), without quotes or spaces.
_NPM_NAME = re.compile(r"(?:@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]{0,213}")


def package_name(tree: Path) -> str | None:
    name = _files.package_json(tree).get("name")
    return name if isinstance(name, str) and _NPM_NAME.fullmatch(name) else None


def probe_command(name: str) -> str:
    """A node one-liner printing where ``name`` resolves from /work, or "-"."""
    if not _NPM_NAME.fullmatch(name):  # pragma: no cover - package_name checked it
        raise ValueError("not an npm package name")
    code = (
        f'let o = "-"; try {{ o = require.resolve("{name}", {{ paths: ["{WORK_DIR}"] }}); }} '
        f'catch (e) {{}} console.log("{PROBE_TAG}", "{name}", o);'
    )
    return f"node -e '{code}'"


def probed_plan(command: str, tree: Path) -> PlannedCommand:
    """``command`` after the probe of where the package's own name resolves (jest's and
    vitest's plan alike); the command alone when the tree names no package."""
    name = package_name(tree)
    if not name:
        return PlannedCommand(command)
    return PlannedCommand(f"{probe_command(name)}; {command}", (name,))
