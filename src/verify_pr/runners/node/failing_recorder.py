"""The expected-failure recorders: our own code that jest and vitest load, which writes each
test's ``failing`` (jest-circus's state) or ``fails`` (vitest's task) flag into the report.

jest and vitest write a ``test.failing`` / ``test.fails`` whose body failed as a plain pass, so
the report alone cannot tell it from a pass, and reading the test file's lines misses a marker
that is destructured (``const { failing } = test``), aliased or split across lines. The
recorder reads the flag from the runner at run time instead, as pytest's xfail already is.

Each recorder is a file of this package, written by the command line itself into the
container's ``/tmp`` (never into the tree) just before the runner starts; jest loads it as its
test runner (``--testRunner``, wrapping jest-circus's), vitest as a reporter (a subclass of its
JSON reporter, loaded natively through a ``data:`` URL, since vite serves nothing from /tmp).
Every passing assertion of a report from our command must carry the flag (:data:`RECORD_KEY`);
the parser treats a missing one as a red flag (:mod:`verify_pr.reports.jest_json`). The tests
run in the same process as jest's recorder and can forge its output, as they can forge the
report: a missing record only adds caution, and the line reader
(:mod:`verify_pr.verify.runs.expected_failures`) still runs beside it.
"""

from __future__ import annotations

from importlib import resources
from typing import Final

from verify_pr.reports.jest_json import RECORD_KEY

# the container's own /tmp: a fresh tmpfs per run, which nothing of the PR's runs before
JEST_RUNNER: Final = "/tmp/verify-pr-jest-runner.js"  # noqa: S108
VITEST_REPORTER: Final = "/tmp/verify-pr-vitest-reporter.mjs"  # noqa: S108
# vite loads a reporter path through its own server, which refuses files outside the project;
# a data: URL is imported by Node itself, and re-exports our file from /tmp.
VITEST_REPORTER_URL: Final = f'data:text/javascript,export{{default}}from"file://{VITEST_REPORTER}"'

__all__ = [
    "JEST_RUNNER",
    "RECORD_KEY",
    "VITEST_REPORTER",
    "jest_install",
    "one_line",
    "vitest_install",
    "with_jest_recorder",
    "with_vitest_recorder",
]


def one_line(name: str) -> str:
    """A JavaScript file of this package (a recorder, vitest's coverage provider) on one
    line, without its comment lines and indentation: the command line (verdict.json shows
    it) stays one line. Every statement in the files ends with its own semicolon or brace,
    so no line break is needed."""
    text = resources.files("verify_pr.runners.node").joinpath(name).read_text(encoding="utf-8")
    lines = (line.strip() for line in text.splitlines())
    code = " ".join(line for line in lines if line and not line.startswith("//"))
    if "'" in code:  # pragma: no cover - a shipped file, checked by the unit tests
        raise ValueError(f"{name} holds a single quote: it goes inside single quotes")
    return code


def _install(name: str, dest: str) -> str:
    # printf is the shell's builtin: no tool the image may lack; '%s' prints the code as is
    return f"printf '%s' '{one_line(name)}' > {dest}"


def jest_install() -> str:
    """The shell command that writes jest's recorder to :data:`JEST_RUNNER`."""
    return _install("failing_jest.js", JEST_RUNNER)


def vitest_install() -> str:
    """The shell command that writes vitest's recorder to :data:`VITEST_REPORTER`."""
    return _install("failing_vitest.mjs", VITEST_REPORTER)


def with_jest_recorder(command: str) -> str:
    """A jest command line (no shell operators) that runs jest-circus through the recorder."""
    return f"{jest_install()} && {command} --testRunner={JEST_RUNNER}"


def with_vitest_recorder(command: str) -> str:
    """A vitest command line whose one ``--reporter=json`` becomes the recorder (a subclass of
    it: the same report, written to the same ``--outputFile.json``)."""
    words = command.split(" ")
    if words.count(_VITEST_JSON) != 1:
        raise ValueError(f"the command needs exactly one {_VITEST_JSON}")
    words[words.index(_VITEST_JSON)] = f"--reporter='{VITEST_REPORTER_URL}'"
    return f"{vitest_install()} && {' '.join(words)}"


_VITEST_JSON = "--reporter=json"
