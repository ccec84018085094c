"""What makes the verify job hold a credential (the Rule of Two): names, never values.

The verify step holds the PR's code, so it refuses to run when the job visibly holds a
credential: an OIDC token request variable (``permissions: id-token: write``), any ``*_TOKEN``
variable, a value that looks like a GitHub token, or a checkout that persisted its credentials
in ``.git/config`` or in a file that config includes (actions/checkout v6 writes them to a file
under ``$RUNNER_TEMP`` and adds an ``includeIf ... path =`` line pointing at it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from verify_pr.errors import ConfigError

OIDC_VARIABLES = ("ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN")
_TOKEN_NAME = re.compile(r"(^|_)(TOKEN|PAT|SECRET)$|^INPUT_.*(TOKEN|SECRET)", re.IGNORECASE)
_TOKEN_VALUE = re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")
_PERSISTED_CREDENTIALS = re.compile(r"extraheader|AUTHORIZATION:", re.IGNORECASE)
_SECTION = re.compile(r"^\s*\[\s*([A-Za-z][A-Za-z0-9.-]*)")
_INCLUDE_PATH = re.compile(r"^\s*path\s*=\s*(.*?)\s*$", re.IGNORECASE)
# git itself stops at 10 nested includes; a config file is small, a bigger one is read in part
MAX_INCLUDE_DEPTH = 10
MAX_CONFIG_BYTES = 1 << 20
FIX_HINT = (
    "the verify job runs the PR's code and must hold no credential: give it "
    "`permissions: {}`, no `id-token: write`, no `env:` or `with:` carrying a token or a "
    "secret, and check out with `persist-credentials: false`; post results from the separate "
    "publish job (see docs/action.md)"
)


def _read(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_CONFIG_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""


def _include_paths(text: str, base: Path, home: str | None) -> Iterator[Path]:
    """``path =`` values of ``[include]`` and ``[includeIf ...]`` sections, as git reads them.

    Conditions are not evaluated: an included file that holds credentials is refused whatever
    its condition says (``gitdir:`` matches the checkout it was written for).
    """
    in_include = False
    for line in text.splitlines():
        section = _SECTION.match(line)
        if section:
            in_include = section.group(1).lower() in ("include", "includeif")
            continue
        match = _INCLUDE_PATH.match(line) if in_include else None
        if not match:
            continue
        value = match.group(1).strip('"')
        if value.startswith("~/") and home:
            value = os.path.join(home, value[2:])
        yield base / value  # an absolute value replaces base


def _config_files(config: Path, home: str | None) -> Iterator[Path]:
    """The config file and every file it includes, depth-bounded, each once."""
    seen: set[Path] = set()
    todo = [(config, 0)]
    while todo:
        path, depth = todo.pop()
        if path in seen or depth > MAX_INCLUDE_DEPTH:
            continue
        seen.add(path)
        yield path
        todo += [(p, depth + 1) for p in _include_paths(_read(path), path.parent, home)]


def held_credentials(env: Mapping[str, str], *checkouts: Path) -> list[str]:
    """What makes this job hold a credential; names only, never values."""
    found = [f"{name} is set (id-token: write)" for name in OIDC_VARIABLES if env.get(name)]
    for name, value in sorted(env.items()):
        if name in OIDC_VARIABLES or not value:
            continue
        if _TOKEN_NAME.search(name):
            found.append(f"{name} is set")
        elif _TOKEN_VALUE.search(value):
            found.append(f"{name} holds what looks like a GitHub token")
    for checkout in dict.fromkeys(checkouts):
        config = checkout / ".git" / "config"
        for path in _config_files(config, env.get("HOME")):
            if _PERSISTED_CREDENTIALS.search(_read(path)):
                where = str(config) if path == config else f"{path} (included by {config})"
                found.append(f"{where} holds persisted credentials (persist-credentials: false)")
    return found


def check_credentials(env: Mapping[str, str], *checkouts: Path) -> None:
    found = held_credentials(env, *checkouts)
    if found:
        raise ConfigError("refusing to run with credentials: " + "; ".join(found), hint=FIX_HINT)
