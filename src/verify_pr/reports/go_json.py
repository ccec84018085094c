"""Strict parser for ``go test -json`` (test2json's event stream), read line by line.

One JSON object a line, each strictly typed; a line that is not one is refused (nothing but the
go command writes that stream: a test's own output arrives inside ``output`` events, escaped,
so a test that prints ``{"Action":"pass"}`` or ``--- PASS: TestX`` only adds text to its own
output; from Go 1.20 the test binary frames its real result lines, which a test cannot print).

Every test (``TestA`` and each subtest ``TestA/case``) that has an event is one testcase; its
last terminal event (``pass``, ``fail``, ``skip``) decides, and a test that started and never
ended (a panic elsewhere, ``os.Exit``, a kill) failed. A package that did not build
(``build-fail``, a package ``fail`` with ``FailedBuild``), or that failed with no failed test
(``TestMain`` exiting non-zero, a crash after the tests), or that never ended, gets one
``error`` stand-in, :data:`LOAD_ERROR_NAME`, standing for every test in it, plus a red flag.

The testcase's ``file`` is the package's import path (the stream names no file), ``classname``
is empty, ``name`` is the test's full name.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from verify_pr.errors import ReportError
from verify_pr.models.report import (
    MAX_TESTCASES,
    MESSAGE_MAX_CHARS,
    RedFlag,
    ReportFormat,
    TestCase,
    TestReport,
    TestStatus,
)
from verify_pr.reports._common import ReportSource, open_report

# The same stand-in name as jest's unloadable file (models.report.LOAD_ERROR_NAMES).
LOAD_ERROR_NAME = "(test file failed to run)"
MAX_LINE_BYTES = 4 * 1024 * 1024  # one event; go cuts a test's output lines far below this
MAX_PACKAGES = 100_000
OUTPUT_KEEP = MESSAGE_MAX_CHARS  # the tail of a failed test's (or package's) output kept
RUNNER = "go test"

_ACTIONS = frozenset(
    {
        "start",
        "run",
        "pause",
        "cont",
        "pass",
        "bench",
        "fail",
        "output",
        "skip",
        "build-output",
        "build-fail",
    }
)
_TERMINAL = {"pass": TestStatus.PASSED, "fail": TestStatus.FAILED, "skip": TestStatus.SKIPPED}
_STRINGS = ("Time", "Action", "Package", "Test", "Output", "FailedBuild", "ImportPath")


class _Refused(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"key {key[:80]!r} appears twice in one event")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:  # noqa: ANN401 - json's hook signature
    raise _Refused(f"{name} is not JSON")


@dataclass
class _Tail:
    """The last OUTPUT_KEEP characters written to one stream of output."""

    parts: deque[str] = field(default_factory=deque)
    size: int = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        while self.size - len(self.parts[0]) >= OUTPUT_KEEP:
            self.size -= len(self.parts.popleft())

    def text(self) -> str | None:
        joined = "".join(self.parts)[-OUTPUT_KEEP:]
        return joined or None


@dataclass
class _Test:
    status: TestStatus | None = None
    elapsed: float | None = None
    output: _Tail = field(default_factory=_Tail)


@dataclass
class _Package:
    tests: dict[str, _Test] = field(default_factory=dict)
    status: TestStatus | None = None
    failed_build: str | None = None  # FailedBuild: the import path that did not build
    output: _Tail = field(default_factory=_Tail)


def parse_go_json(data: ReportSource, *, max_testcases: int = MAX_TESTCASES) -> TestReport:
    """Parse ``go test -json`` output (bytes, or a file streamed line by line); ReportError on
    anything we cannot vouch for."""
    if not 0 < max_testcases <= MAX_TESTCASES:
        raise ValueError(f"max_testcases must be 1..{MAX_TESTCASES}, not {max_testcases}")
    what = "go test -json report"
    packages: dict[str, _Package] = {}
    built: dict[str, _Tail] = {}  # build output by import path (build-output events)
    failed_builds: set[str] = set()
    tests = 0  # tests seen so far, all packages
    with open_report(data, what) as (stream, _size):
        for number, event in enumerate(_events(stream, what), start=1):
            if _apply(event, f"{what}: event {number}", packages, built, failed_builds):
                tests += 1
                if tests > max_testcases:
                    raise ReportError(f"{what}: more than {max_testcases} tests")
    return _report(packages, built, failed_builds)


def _events(stream: BinaryIO, what: str) -> Any:  # noqa: ANN401 - yields decoded events
    number = 0
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise ReportError(f"{what}: line {number} is over {MAX_LINE_BYTES} bytes")
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
            event = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
        except (UnicodeDecodeError, ValueError, _Refused) as exc:
            raise ReportError(f"{what}: line {number} is not a JSON event: {exc}"[:300]) from None
        if not isinstance(event, dict):
            raise ReportError(f"{what}: line {number} is not a JSON object")
        yield event


def _apply(
    event: dict[str, Any],
    at: str,
    packages: dict[str, _Package],
    built: dict[str, _Tail],
    failed_builds: set[str],
) -> bool:
    """Apply one event; True when it is the first event of a test."""
    for key in _STRINGS:
        if key in event and not isinstance(event[key], str):
            raise ReportError(f"{at}: {key} is not a string")
    elapsed = event.get("Elapsed")
    if elapsed is not None and (
        isinstance(elapsed, bool) or not isinstance(elapsed, int | float) or elapsed < 0
    ):
        raise ReportError(f"{at}: Elapsed is not a non-negative number")
    action = event.get("Action")
    if action not in _ACTIONS:
        raise ReportError(f"{at}: unknown Action {str(action)[:40]!r}")
    if action in ("build-output", "build-fail"):
        path = event.get("ImportPath")
        if not path:
            raise ReportError(f"{at}: {action} without ImportPath")
        if action == "build-fail":
            failed_builds.add(path)
        else:
            built.setdefault(path, _Tail()).add(event.get("Output", ""))
        return False
    name = event.get("Package")
    if not name:
        raise ReportError(f"{at}: event without Package")
    package = packages.get(name)
    if package is None:
        if len(packages) >= MAX_PACKAGES:
            raise ReportError(f"{at}: more than {MAX_PACKAGES} packages")
        package = packages[name] = _Package()
    if event.get("FailedBuild"):
        package.failed_build = event["FailedBuild"]
    test_name = event.get("Test")
    if not test_name:
        if action == "output":
            package.output.add(event.get("Output", ""))
        elif action in _TERMINAL:
            package.status = _worse(package.status, _TERMINAL[action])
        return False
    test = package.tests.get(test_name)
    fresh = test is None
    if test is None:
        test = package.tests[test_name] = _Test()
    if action == "output":
        test.output.add(event.get("Output", ""))
    elif action in _TERMINAL:
        test.status = _worse(test.status, _TERMINAL[action])
        test.elapsed = float(elapsed) if elapsed is not None else test.elapsed
    return fresh


_RANK = {TestStatus.SKIPPED: 0, TestStatus.PASSED: 1, TestStatus.FAILED: 2}


def _worse(seen: TestStatus | None, new: TestStatus) -> TestStatus:
    """Two terminal events for one test or package: the worse one counts."""
    return new if seen is None or _RANK[new] > _RANK[seen] else seen


def _load_error(package: str, message: str | None) -> TestCase:
    """The stand-in for every test of a package that did not build or did not end."""
    return TestCase.build(
        name=LOAD_ERROR_NAME,
        classname=None,
        file=package,
        line=None,
        status=TestStatus.ERROR,
        message=message,
    )


def _report(
    packages: dict[str, _Package], built: dict[str, _Tail], failed_builds: set[str]
) -> TestReport:
    cases: list[TestCase] = []
    flags: list[RedFlag] = []
    for name, package in packages.items():
        unended = [t for t in package.tests.values() if t.status is None]
        for test_name, test in package.tests.items():
            status = TestStatus.FAILED if test.status is None else test.status
            cases.append(
                TestCase.build(
                    name=test_name,
                    classname=None,
                    file=name,
                    line=None,
                    status=status,
                    message=(test.output.text() if status is TestStatus.FAILED else None),
                    duration_s=test.elapsed,
                )
            )
        if unended:
            flags.append(RedFlag.INTERRUPTED)
        failed_tests = any(
            t.status is TestStatus.FAILED or t.status is None for t in package.tests.values()
        )
        no_build = package.failed_build is not None or name in failed_builds
        if package.status is None:
            flags.append(RedFlag.INTERRUPTED)  # the package never ended: a kill, a timeout
        if (
            no_build
            or package.status is None
            or (package.status is TestStatus.FAILED and not failed_tests)
        ):
            flags.append(RedFlag.LOAD_ERROR)
            output = built.get(package.failed_build or name)
            build_text = output.text() if output is not None else None
            cases.append(
                _load_error(
                    name,
                    build_text
                    or package.output.text()
                    or "the package failed without a failed test",
                )
            )
    named = {p.failed_build for p in packages.values()} | packages.keys()
    for path in sorted(failed_builds - named):
        # a dependency that did not build, named by no package event: still failure evidence
        flags.append(RedFlag.LOAD_ERROR)
        cases.append(_load_error(path, built[path].text() if path in built else "build failed"))
    return TestReport.build(
        format=ReportFormat.GO_JSON, testcases=cases, red_flags=flags, runner=RUNNER
    )
