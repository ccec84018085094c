"""The expected-failure recorders: how they reach the container's /tmp, what the parser makes
of their records (and of a report without them), and the union with the line reader.

The recorders themselves run in real containers: tests/integration/test_failing_recorder.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from verify_pr.models.report import RedFlag, TestStatus
from verify_pr.reports.jest_json import OUTSIDE_KEY, RECORD_KEY, JsonDialect, parse_jest_json
from verify_pr.runners.jest.runner import JestRunner
from verify_pr.runners.node import failing_recorder
from verify_pr.runners.vitest.runner import VitestRunner
from verify_pr.verify.runs import expected_failures

SOURCES = Path(failing_recorder.__file__).parent
GOOD = "/work/vpr-report-0123456789abcdef0123456789abcdef.json"


@pytest.mark.parametrize(
    ("install", "source", "dest"),
    [
        (failing_recorder.jest_install, "failing_jest.js", failing_recorder.JEST_RUNNER),
        (failing_recorder.vitest_install, "failing_vitest.mjs", failing_recorder.VITEST_REPORTER),
    ],
)
def test_the_install_writes_the_source_on_one_line_without_its_comments(
    tmp_path: Path, install: Any, source: str, dest: str
) -> None:
    # our own shell line (no PR file involved), run by sh as the container's would
    command = install().replace(f"> {dest}", f"> {tmp_path / 'out'}")
    subprocess.run(["/bin/sh", "-c", command], check=True, timeout=10)
    written = (tmp_path / "out").read_text()
    code = [line.strip() for line in (SOURCES / source).read_text().splitlines()]
    assert written == " ".join(x for x in code if x and not x.startswith("//"))
    assert "\n" not in written  # one line: verdict.json shows the command
    assert f"row.{RECORD_KEY} = " in written  # the key the parser reads
    assert "'" not in written


def test_the_recorders_ride_on_the_runners_commands() -> None:
    jest = JestRunner().command(GOOD)
    assert jest.startswith(failing_recorder.jest_install() + " && jest ")
    assert jest.endswith(f" --testRunner={failing_recorder.JEST_RUNNER}")
    vitest = VitestRunner().command(GOOD)
    assert vitest.startswith(failing_recorder.vitest_install() + " && vitest run ")
    assert "--reporter=json" not in vitest
    assert f"--reporter='{failing_recorder.VITEST_REPORTER_URL}'" in vitest
    assert f"--outputFile.json={GOOD}" in vitest  # our reporter writes where json would
    # the report path is named once, by the runner's own flag
    assert jest.count(GOOD) == vitest.count(GOOD) == 1


@pytest.mark.parametrize("command", ["vitest run", "vitest run --reporter=json --reporter=json"])
def test_the_vitest_recorder_replaces_exactly_one_json_reporter(command: str) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        failing_recorder.with_vitest_recorder(command)


def _report(*rows: dict[str, Any]) -> bytes:
    assertions = [
        {"ancestorTitles": [], "title": f"t{i}", "failureMessages": [], **row}
        for i, row in enumerate(rows)
    ]
    failed = sum(a["status"] == "failed" for a in assertions)
    for a in assertions:
        if a["status"] == "failed":
            a["failureMessages"] = ["boom"]
    return json.dumps(
        {
            "success": failed == 0,
            "numTotalTests": len(assertions),
            "numFailedTests": failed,
            "numFailedTestSuites": int(failed > 0),
            "numRuntimeErrorTestSuites": 0,
            "wasInterrupted": False,
            "testResults": [
                {
                    "name": "/work/a.test.js",
                    "status": "failed" if failed else "passed",
                    "assertionResults": assertions,
                }
            ],
        }
    ).encode()


@pytest.mark.parametrize("runner", [JestRunner(), VitestRunner()], ids=lambda r: r.name)
def test_a_recorded_failing_pass_is_an_expected_failure(runner: JestRunner) -> None:
    data = _report(
        {"status": "passed", RECORD_KEY: True},
        {"status": "passed", RECORD_KEY: False},
        {"status": "failed", RECORD_KEY: True, OUTSIDE_KEY: False},  # marked, its body passed
    )
    report = runner.parse(data)
    assert [c.status for c in report.testcases] == [
        TestStatus.EXPECTED_FAILURE,
        TestStatus.PASSED,
        TestStatus.FAILED,
    ]
    assert report.red_flags == ()


@pytest.mark.parametrize("runner", [JestRunner(), VitestRunner()], ids=lambda r: r.name)
def test_a_pass_without_its_record_is_a_red_flag_under_our_command(runner: JestRunner) -> None:
    # failed, skipped and todo results need no record: none of them can become a pass
    data = _report(
        {"status": "passed", RECORD_KEY: False},
        {"status": "failed", OUTSIDE_KEY: False},
        {"status": "pending"},
        {"status": "todo"},
    )
    assert runner.parse(data).red_flags == ()
    missing = _report({"status": "passed", RECORD_KEY: False}, {"status": "passed"})
    report = runner.parse(missing)
    assert report.red_flags == (RedFlag.FAILING_UNRECORDED,)
    # the same report from a caller's own command (no recorder ran): no record is expected
    plain = parse_jest_json(missing, dialect=JsonDialect.JEST, tree_root="/work")
    assert plain.red_flags == ()


@pytest.mark.parametrize("runner", [JestRunner(), VitestRunner()], ids=lambda r: r.name)
def test_a_failure_outside_the_test_s_body_is_an_error(runner: JestRunner) -> None:
    """A beforeEach/beforeAll that threw (issue 33, class 7), or a failed result the recorder
    could not say about: an error, as pytest's setup errors are, never the test's failure."""
    data = _report(
        {"status": "failed", RECORD_KEY: False, OUTSIDE_KEY: False},
        {"status": "failed", RECORD_KEY: False, OUTSIDE_KEY: True},
        {"status": "failed", RECORD_KEY: False},
    )
    report = runner.parse(data)
    statuses = [c.status for c in report.testcases]
    assert statuses == [TestStatus.FAILED, TestStatus.ERROR, TestStatus.ERROR]
    assert report.red_flags == ()  # the totals still agree: jest counts them failed
    plain = parse_jest_json(data, dialect=JsonDialect.JEST, tree_root="/work")
    # a caller's own command: no record expected, the one given still counts
    want = [TestStatus.FAILED, TestStatus.ERROR, TestStatus.FAILED]
    assert [c.status for c in plain.testcases] == want


def test_the_line_reader_still_marks_what_the_record_calls_a_pass(tmp_path: Path) -> None:
    # a forged `false` can never take away what the test's own line declares
    (tmp_path / "a.test.js").write_text("test('t0', () => {});\ntest.failing('t1', f);\n")
    data = _report(
        {"status": "passed", RECORD_KEY: True, "location": {"line": 1}},
        {"status": "passed", RECORD_KEY: False, "location": {"line": 2}},
    )
    report = expected_failures.mark(JestRunner().parse(data), tmp_path)
    assert [c.status for c in report.testcases] == [TestStatus.EXPECTED_FAILURE] * 2
