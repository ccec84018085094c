"""Which runners package.json ``scripts.test`` names: read as text, never run.

Follows ``npm run X`` style references to other scripts (a few levels, no cycles), because
``"test": "npm run test:unit"`` is common.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from verify_pr.contract import RunnerName

MAX_SCRIPT_CHARS = 4096
MAX_REFERENCE_DEPTH = 3
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")"})
_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})
_ENV_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")
_WRAPPERS = frozenset({"npx", "bunx", "pnpx", "exec", "env", "cross-env", "dotenv"})


def runners_in_test_script(pkg: dict[str, Any]) -> dict[str, str]:
    """Runner name -> the script text that runs it, starting at ``scripts.test``."""
    scripts = pkg.get("scripts")
    if not isinstance(scripts, dict):
        return {}
    found: dict[str, str] = {}
    _visit(scripts, "test", found, depth=0, seen=set())
    return found


def _visit(
    scripts: dict[str, Any], key: str, found: dict[str, str], *, depth: int, seen: set[str]
) -> None:
    script = scripts.get(key)
    if not isinstance(script, str) or key in seen or depth > MAX_REFERENCE_DEPTH:
        return
    seen.add(key)
    for words in _commands(script[:MAX_SCRIPT_CHARS]):
        runner = _runner_of(words)
        if runner is not None:
            found.setdefault(runner, f"{key}: {script[:120]}")
            continue
        reference = _script_reference(words)
        if reference is not None:
            _visit(scripts, reference, found, depth=depth + 1, seen=seen)


def _commands(script: str) -> list[list[str]]:
    """Split a script into simple commands (words between && ; | ...)."""
    try:
        lexer = shlex.shlex(script, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to plain words
        tokens = script.split()
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in _SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [_strip_prefix(c) for c in commands if c]


def _strip_prefix(words: list[str]) -> list[str]:
    """Drop ``FOO=bar``, ``npx``, ``cross-env`` and their like before the real program."""
    index = 0
    while index < len(words) and (
        _ENV_ASSIGNMENT.fullmatch(words[index]) or words[index] in _WRAPPERS
    ):
        index += 1
    return words[index:]


def _program(word: str) -> str:
    return word.rsplit("/", 1)[-1]  # node_modules/.bin/jest -> jest


def _runner_of(words: list[str]) -> str | None:
    if not words:
        return None
    program = _program(words[0])
    rest = words[1:]
    if program in (RunnerName.JEST, RunnerName.VITEST, RunnerName.PYTEST):
        return program
    if program == RunnerName.BUN and rest[:1] == ["test"]:
        return RunnerName.BUN
    if program.startswith("python") and rest[:2] == ["-m", "pytest"]:
        return RunnerName.PYTEST
    return None


def _script_reference(words: list[str]) -> str | None:
    """``npm run X`` / ``yarn X`` / ``bun run X`` -> X."""
    if len(words) < 2 or _program(words[0]) not in _PACKAGE_MANAGERS:
        return None
    if words[1] in ("run", "run-script") and len(words) >= 3:
        return words[2]
    if words[1] == "test" and _program(words[0]) != "bun":
        return "test"  # "npm test" inside another script: already visited, no loop
    if _program(words[0]) == "yarn" and not words[1].startswith("-"):
        return words[1]
    return None
