"""Line coverage of the PR's changed JavaScript files, under jest and vitest (docs/coverage.md).

jest: jest's own V8 provider (``--coverageProvider=v8``: V8's built-in coverage, collected in
the test process and mapped back through the transform's source maps by the v8-to-istanbul
jest ships) writes istanbul JSON into a fresh folder in the container's /tmp; after jest
exits, the command copies that one file to the coverage path only this command line names,
and exits with jest's own code. The project's ``coverageThreshold`` is switched off (``{}``),
so turning coverage on cannot change jest's exit code.

vitest: our own coverage provider (``coverage_vitest.mjs``, loaded through vitest's
``--coverage.provider=custom``; the image has no @vitest/coverage-v8). Its workers take V8's
block coverage through ``node:inspector``; its main process parses each changed file with the
image's @babel/parser and maps each statement through vite-node's inline source map to the
V8 range that ran it, then writes our JSON (version 1) to the coverage path. It never throws
(a failure leaves no file: "no coverage data came back"), a custom provider checks no
thresholds, and when vitest cannot load it the suite runs again without it: vitest's exit
code and report are its own.
"""

from __future__ import annotations

import json
import re
import secrets
import shlex
from collections.abc import Callable

from verify_pr.contract import RunnerName
from verify_pr.runners.node.failing_recorder import one_line

_JEST = "jest --ci --json "
_VITEST = "vitest run --configLoader runner "
_PLAIN = re.compile(r"[A-Za-z0-9._/-]+")  # a file name no glob or shell word can misread
# the container's own /tmp (a fresh tmpfs per run). A path with /node_modules/ and .mjs is
# what vite-node imports natively (its depsExternal), so vite never serves it from /tmp.
# the files a JavaScript tracer measures
JS_SUFFIXES = (".js", ".cjs", ".mjs", ".jsx", ".ts", ".cts", ".mts", ".tsx")
VITEST_PROVIDER = "/tmp/node_modules/verify-pr-coverage.mjs"  # noqa: S108
_MAX_COMMAND = 60_000  # under the sandbox's 65536-character cap for --cmd


def _plain(files: list[str]) -> bool:
    return bool(files) and all(_PLAIN.fullmatch(f) and not f.startswith(("-", "/")) for f in files)


def instrument_jest(command: str, files: list[str], coverage_path: str) -> str | None:
    """``command`` (our jest command, re-run words included) with V8 coverage of ``files``;
    None when it is not ours or a name is not plain (then coverage is not measured)."""
    if command.count(_JEST) != 1 or not _plain(files):
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


def vitest_provider_install(files: list[str], coverage_path: str, loaded: str) -> str:
    """The shell command that writes our provider, with its files, its output path and the
    file it leaves once vitest has loaded it (``loaded``) first."""
    config = json.dumps({"files": files, "out": coverage_path, "loaded": loaded})
    code = f"const VPR = {config}; {one_line('coverage_vitest.mjs')}"
    # printf is the shell's builtin; '%s' prints the code as is (no single quote in it:
    # the names are plain and the file is checked by one_line)
    return f"mkdir -p /tmp/node_modules && printf '%s' '{code}' > {VITEST_PROVIDER}"


def instrument_vitest(command: str, files: list[str], coverage_path: str) -> str | None:
    """``command`` (our vitest command, re-run words included) with our provider measuring
    ``files``; None when it is not ours or a name is not plain (then not measured)."""
    if command.count(_VITEST) != 1 or not _plain(files) or not _PLAIN.fullmatch(coverage_path):
        return None
    flags = [
        "--coverage.enabled",
        "--coverage.provider=custom",
        f"--coverage.customProviderModule={VITEST_PROVIDER}",
        # never the root: vitest refuses a run whose reportsDirectory is the root (a config
        # can set it); our provider writes nothing there
        "--coverage.reportsDirectory=/tmp/vpr-coverage-unused",
    ]
    run = command.replace(_VITEST, f"{_VITEST}{' '.join(flags)} ")
    loaded = f"/tmp/vpr-coverage-loaded-{secrets.token_hex(16)}"  # noqa: S108
    # vitest loads the provider before it runs any test, and a provider it cannot load ends
    # the run: then the suite runs again as it would without coverage (its code, its report)
    instrumented = (
        f"{vitest_provider_install(files, coverage_path, loaded)} && "
        f"{{ {run}; vpr_rc=$?; [ -e {loaded} ] || {{ {command}; vpr_rc=$?; }}; exit $vpr_rc; }}"
    )
    return instrumented if len(instrumented) <= _MAX_COMMAND else None


def instrument_for(runner: str) -> Callable[[str, list[str], str], str | None] | None:
    """The runner's instrumenter: jest's or vitest's; None for any other."""
    if runner == RunnerName.JEST:
        return instrument_jest
    return instrument_vitest if runner == RunnerName.VITEST else None
