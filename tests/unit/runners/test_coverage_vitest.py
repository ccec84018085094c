"""vitest's coverage: how our provider rides on our vitest command (the provider itself runs
in real containers: tests/integration/test_patch_coverage_vitest.py)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from verify_pr.runners.node import coverage as coverage_node
from verify_pr.runners.node.coverage import VITEST_PROVIDER, instrument_vitest
from verify_pr.runners.vitest.runner import VitestRunner

REPORT = "/work/vpr-report-" + "a" * 32 + ".json"
COVERAGE = "/work/vpr-report-" + "b" * 32 + ".json"


def test_the_provider_rides_before_the_rerun_words() -> None:
    command = VitestRunner().command(REPORT) + " calc.test.js -t 'add$'"
    traced = instrument_vitest(command, ["src/calc.js"], COVERAGE)
    assert traced is not None
    # the provider is written first, then our own command runs as it was, with the flags
    install, rest = traced.split(f" > {VITEST_PROVIDER} && ", 1)
    assert install.startswith("mkdir -p /tmp/node_modules && printf '%s' 'const VPR = ")
    loaded = json.loads(install.split("const VPR = ", 1)[1].split("; ", 1)[0])["loaded"]
    assert re.fullmatch(r"/tmp/vpr-coverage-loaded-[0-9a-f]{32}", loaded)
    run = command.replace(
        "vitest run --configLoader runner ",
        "vitest run --configLoader runner --coverage.enabled --coverage.provider=custom "
        f"--coverage.customProviderModule={VITEST_PROVIDER} "
        "--coverage.reportsDirectory=/tmp/vpr-coverage-unused ",
    )
    # vitest's own exit code; the plain command again when vitest could not load the provider
    assert rest == (
        f"{{ {run}; vpr_rc=$?; [ -e {loaded} ] || {{ {command}; vpr_rc=$?; }}; exit $vpr_rc; }}"
    )
    assert run.index("--coverage.enabled") < run.index(" calc.test.js -t ")
    assert traced.count(COVERAGE) == 1 and traced.count(REPORT) == 2  # once per run
    assert coverage_node.instrument_for("vitest") is instrument_vitest


def test_not_our_command_or_names_a_shell_could_misread_are_not_measured() -> None:
    ours = VitestRunner().command(REPORT)
    assert instrument_vitest(ours, ["calc.js"], COVERAGE) is not None  # the twin
    assert instrument_vitest("npx vitest run", ["calc.js"], COVERAGE) is None
    assert instrument_vitest(ours, ["a b.js"], COVERAGE) is None
    assert instrument_vitest(ours, ["it's.js"], COVERAGE) is None
    assert instrument_vitest(ours, [], COVERAGE) is None
    assert instrument_vitest(ours, ["calc.js"], "/work/x y") is None
    # the sandbox takes a command of at most 65536 characters: too many files, not measured
    many = [f"src/{'d' * 200}/f{n}.js" for n in range(300)]
    assert instrument_vitest(ours, many, COVERAGE) is None


def test_the_install_writes_the_provider_with_its_files_and_path(tmp_path: Path) -> None:
    # our own shell line (no PR file involved), run by sh as the container's would
    install = coverage_node.vitest_provider_install(["src/calc.js", "b.ts"], COVERAGE, "/tmp/l")
    out = tmp_path / "provider.mjs"
    command = install.replace("mkdir -p /tmp/node_modules && ", "").replace(
        f"> {VITEST_PROVIDER}", f"> {out}"
    )
    subprocess.run(["/bin/sh", "-c", command], check=True, timeout=10)
    written = out.read_text()
    head, _, code = written.partition("; ")
    assert json.loads(head.removeprefix("const VPR = ")) == {
        "files": ["src/calc.js", "b.ts"],
        "out": COVERAGE,
        "loaded": "/tmp/l",
    }
    assert "\n" not in written and "'" not in written
    assert 'import { Session } from "node:inspector";' in code
    assert code.endswith("};")  # the whole file: its default export closes it
