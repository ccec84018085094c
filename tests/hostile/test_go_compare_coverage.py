"""A Go proof must run the code the PR changed: measured by go's own ``-coverprofile`` in the
proof's re-runs on both sides (runners/go/coverage.py; docs/coverage.md).

- reads_code: the PR fixes ``Add`` and adds a test that never calls it: the test reads
  ``calc.go`` as data and passes when the fixed text is there. It fails on base's code and
  passes on head, exactly as a proof would, but ran none of the changed lines: NOT PROVEN.
- The honest twin: the same fix with a test that calls ``Add``: VERIFIED, the proof naming the
  changed line it ran on each side (the positive control: the tracer sees what a test runs).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import require_docker
from tests.git_helpers import commit, init_repo
from tests.hostile.helpers import RECORD, control
from tests.integration.go_helpers import (
    ADD_TEST,
    CALC_BUGGY,
    CALC_FIXED,
    GO_IMAGE,
    GO_MOD,
    MUL_TEST,
)
from tests.integration.helpers import compare
from verify_pr.models.compare import ChangedCode, CompareResult

READS = (
    'package calc\n\nimport (\n\t"os"\n\t"strings"\n\t"testing"\n)\n\n'
    "func TestAdd(t *testing.T) {\n"
    '\tsource, err := os.ReadFile("calc.go")\n'
    '\tif err != nil || !strings.Contains(string(source), "a + b") {\n'
    '\t\tt.Fatal("Add is not fixed")\n\t}\n}\n'
)


def _compare(tmp_path: Path, test: str) -> CompareResult:
    require_docker(GO_IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(repo, {"go.mod": GO_MOD, "calc.go": CALC_BUGGY, "mul_test.go": MUL_TEST})
    head = commit(repo, {"calc.go": CALC_FIXED, "add_test.go": test})
    _code, result, _summary = compare(tmp_path / "out", repo, base, head, GO_IMAGE)
    return result


def test_a_go_test_that_reads_the_code_as_data_proves_nothing(tmp_path: Path) -> None:
    result = _compare(tmp_path, READS)
    assert result.verdict.value == "NOT_PROVEN", result.reasons
    (proof,) = result.proofs
    assert proof.changed_code is ChangedCode.NOT_RUN
    assert any("ran none of the changed lines" in r for r in result.reasons), result.reasons
    RECORD.append(("outcome", "NOT_PROVEN, the proof ran none of the changed lines"))
    control("TestAdd fails on base's code and passes on head: a proof but for what it ran")


def test_the_go_twin_that_calls_the_code_is_verified(tmp_path: Path) -> None:
    result = _compare(tmp_path, ADD_TEST)
    assert result.verdict.value == "VERIFIED", result.reasons
    (proof,) = result.proofs
    assert proof.changed_code is ChangedCode.RAN
    assert set(proof.changed_code_lines) == {"before calc.go:4", "head calc.go:4"}
    assert result.patch_coverage is not None and result.patch_coverage.tool == (
        "go test -coverprofile"
    )
    RECORD.append(("outcome", "VERIFIED, the proof ran calc.go:4 on both sides"))
    control("go's profile names the changed line the test ran, on each side")
