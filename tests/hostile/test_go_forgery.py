"""Issue 38: a Go test that fails for real and prints its way to a pass.

Each fixture in tests/fixtures/go fails a test and prints what an older or a lenient reader
takes for that test's pass: the framing lines ``--- PASS: TestX`` and ``ok <package>`` (what
Go 1.19's test2json and SWE-bench's log scraping read), the JSON events of a pass (what a
reader of a merged stdout reads), or a pass and then ``os.Exit(0)`` before the failure, with
the testing package's guard against it switched off or from another goroutine. Positive
control: the lenient reader, run on the very report the run returned, finds the forged pass.
verify-pr counts the test failed, never passed. Honest twin: the ``pass`` module, same shape,
is a PASS.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.hostile.helpers import control
from tests.hostile.verdicts import run, verdict
from tests.integration.go_helpers import GO_ATTACKS, GO_FIXTURES, GO_IMAGE

ATTACKS = GO_ATTACKS
_SCRAPED = re.compile(r"^--- PASS: (\S+)", re.MULTILINE)


def _outputs(report: bytes) -> str:
    """Every output text of the stream, in order: what the test printed, as a log shows it."""
    texts = []
    for line in report.splitlines():
        event = json.loads(line)
        texts.append(event.get("Output", ""))
    return "".join(texts)


def _lenient_passes(report: bytes) -> set[str]:
    """Tests a lenient reader counts passed: ``--- PASS:`` lines scraped from the log (Go
    1.19's test2json, SWE-bench's graders), and pass events found anywhere in it."""
    log = _outputs(report)
    passed = set(_SCRAPED.findall(log))
    for line in log.splitlines():
        if line.startswith('{"Action":"pass"'):
            test = json.loads(line).get("Test")
            if test:
                passed.add(test)
    return passed


@pytest.mark.parametrize("fixture", sorted(ATTACKS))
def test_printed_passes_never_pass_a_failing_go_test(fixture: str, tmp_path: Path) -> None:
    result = run(GO_FIXTURES / fixture, GO_IMAGE, tmp_path / "out", "--runner", "go")
    statuses = {c["name"]: c["status"] for c in result.verdict["testcases"]}
    target = ATTACKS[fixture]
    if fixture == "testmain_exit0":
        # TestMain runs nothing and exits 0: no test has a result, nothing is proven, and
        # the reasons name the TestMain (on a tree whose other packages pass, the run would
        # pass with that reason: compare's harness rule is what closes it)
        verdict(result, "NOT_PROVEN", "no testcases")
        assert statuses == {}
        assert "sum_test.go defines TestMain" in "\n".join(result.verdict["reasons"])
        events = [
            json.loads(x) for x in (tmp_path / "out" / "report.txt").read_bytes().split(b"\n") if x
        ]
        assert [e["Action"] for e in events if e["Action"] in ("pass", "fail")] == ["pass"]
        control("go test itself reports the package passed")
        return
    verdict(result, "FAIL")
    assert statuses[target] == "failed"
    report = (tmp_path / "out" / "report.txt").read_bytes()
    assert target in _lenient_passes(report)
    control(f"a lenient reader of the same report counts {target} passed")


def test_the_honest_twin_passes(tmp_path: Path) -> None:
    result = run(GO_FIXTURES / "pass", GO_IMAGE, tmp_path / "out", "--runner", "go")
    verdict(result, "PASS")
    assert result.verdict["totals"]["passed"] == 5
