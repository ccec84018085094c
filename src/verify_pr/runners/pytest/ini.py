"""Where pytest reads its ini options: the files, their tables, and ``addopts``.

One module owns this, below its readers: the runner (detection, tamper signals), the scan for
config that runs code (``config_code``) and compare's test rule (``verify.split.testpaths``).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from verify_pr.runners import _files

# Files pytest reads its ini options from, with the table/section that holds them.
_INI_FILES = (("pytest.ini", "pytest"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))
_TOML_FILES = (("pytest.toml", ("pytest",)), (".pytest.toml", ("pytest",)))
_PYPROJECT_TABLES = (("tool", "pytest", "ini_options"), ("tool", "pytest"))


def ini_sources(tree: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every pytest config present, as (where, options). pytest itself uses the first one
    found; listing all keeps a shadowed-but-tampered file visible."""
    found: list[tuple[str, dict[str, Any]]] = []
    for name, path in _TOML_FILES:
        if _files.entry(tree, name) is _files.Entry.FILE:
            found.append((name, _files.table(_files.read_toml(tree, name), *path) or {}))
    for name in ("pytest.ini", ".pytest.ini"):  # used even without a [pytest] section
        if _files.entry(tree, name) is _files.Entry.FILE:
            found.append((name, _ini_section(tree, name, "pytest") or {}))
    pyproject = _files.read_toml(tree, "pyproject.toml")
    for keys in _PYPROJECT_TABLES:
        options = _files.table(pyproject, *keys)
        if options is not None:
            found.append((f"pyproject.toml [{'.'.join(keys)}]", options))
            break
    for name, section in _INI_FILES[1:]:
        options = _ini_section(tree, name, section)
        if options is not None:
            found.append((f"{name} [{section}]", options))
    return found


def _ini_section(tree: Path, name: str, section: str) -> dict[str, Any] | None:
    parser = _files.read_ini(tree, name)
    if parser is None or not parser.has_section(section):
        return None
    return dict(parser.items(section))


def addopts_words(options: dict[str, Any]) -> list[str]:
    """The words of an ``addopts`` option, a TOML list or a shell-quoted string."""
    raw = options.get("addopts")
    if isinstance(raw, list):
        return [w for w in raw if isinstance(w, str)]
    if not isinstance(raw, str):
        return []
    try:
        return shlex.split(raw)
    except ValueError:
        return raw.split()
