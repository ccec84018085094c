"""Line coverage of the PR's changed JavaScript files, under jest (docs/coverage.md).

jest's own V8 provider (``--coverageProvider=v8``: V8's built-in coverage, collected in the
test process and mapped back through the transform's source maps by the v8-to-istanbul jest
ships) writes istanbul JSON into a fresh folder in the container's /tmp; after jest exits,
the command copies that one file to the coverage path only this command line names, and
exits with jest's own code. The project's ``coverageThreshold`` is switched off (``{}``), so
turning coverage on cannot change jest's exit code.

vitest: not measured. Its V8 provider is a package (@vitest/coverage-v8) the image lacks, and
``NODE_V8_COVERAGE`` sees nothing of the tests: they run in pool workers that are ended
without writing it, and the code they run is vite's transform (no source map on disk).
"""

from __future__ import annotations

import re
import secrets
import shlex
from collections.abc import Callable

from verify_pr.contract import RunnerName

_JEST = "jest --ci --json "
_PLAIN = re.compile(r"[A-Za-z0-9._/-]+")  # a file name no glob or shell word can misread


def instrument_jest(command: str, files: list[str], coverage_path: str) -> str | None:
    """``command`` (our jest command, re-run words included) with V8 coverage of ``files``;
    None when it is not ours or a name is not plain (then coverage is not measured)."""
    if command.count(_JEST) != 1 or not files:
        return None
    if not all(_PLAIN.fullmatch(f) and not f.startswith(("-", "/")) for f in files):
        return None
    # inside the container: its private /tmp tmpfs, a fresh random name
    folder = f"/tmp/vpr-coverage-{secrets.token_hex(16)}"  # noqa: S108
    flags = [
        "--coverage",
        "--coverageProvider=v8",
        "--coverageReporters=json",
        f"--coverageDirectory={folder}",
        "--coverageThreshold={}",
        *(f"--collectCoverageFrom={f}" for f in files),
    ]
    words = " ".join(shlex.quote(w) for w in flags)
    run = command.replace(_JEST, f"{_JEST}{words} ")
    copy = f"cp {folder}/coverage-final.json {shlex.quote(coverage_path)} 2>/dev/null"
    return f"{run}; vpr_rc=$?; {copy}; exit $vpr_rc"


def instrument_for(runner: str) -> Callable[[str, list[str], str], str | None] | None:
    """jest's instrumenter; None for vitest (not measured, see above)."""
    return instrument_jest if runner == RunnerName.JEST else None
