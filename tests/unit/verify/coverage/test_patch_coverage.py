"""Patch coverage on the host: hunk headers, the tracer's data parsed strictly, the figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verify_pr.git.changed_lines import parse_hunks
from verify_pr.models.coverage import CoverageState, PatchCoverage
from verify_pr.render.coverage import coverage_section, headline, meaning, not_run_spans, ranges
from verify_pr.runners.pytest.coverage import bootstrap, instrument
from verify_pr.runners.pytest.runner import PytestRunner
from verify_pr.runners.registry import runner_named
from verify_pr.sandbox.spool import ReportSpool
from verify_pr.verify.coverage.lines import FileLines, LineData, summarize
from verify_pr.verify.coverage.patch import CoverageDataError, Session, parse_line_data

GOOD = {
    "version": 1,
    "tracer": "settrace",
    "runtime": "python 3.11.2",
    "files": {"calc.py": {"executable": [1, 2, 5], "function": [2], "run": [1, 2]}},
}


def spool_of(doc: object) -> ReportSpool:
    spool = ReportSpool()
    spool.write(json.dumps(doc).encode() if not isinstance(doc, bytes) else doc)
    return spool


def test_hunk_headers_give_the_new_sides_lines() -> None:
    diff = b"@@ -1,0 +2,3 @@ x\n+a\n@@ -10 +12 @@\n@@ -20,2 +22,0 @@\n+@@ -1 +99 @@ body\n"
    # a pure deletion (+22,0) adds no line; a "@@" inside a line's text is not a header
    assert parse_hunks(diff) == (2, 3, 4, 12)


def test_the_tracers_data_is_read() -> None:
    data = parse_line_data(spool_of(GOOD), ["calc.py"])
    assert data.tool == "settrace (python 3.11.2)"
    assert data.files["calc.py"] == FileLines(
        frozenset({1, 2, 5}), frozenset({2}), frozenset({1, 2})
    )


@pytest.mark.parametrize(
    "bad",
    [
        b"not json",
        {"version": 2, "files": {}},
        {"version": 1, "files": {"other.py": {"executable": [], "run": []}}},
        {"version": 1, "files": {"calc.py": {"executable": [1], "run": ["1"]}}},
        {"version": 1, "files": {"calc.py": {"executable": [1], "run": [0]}}},
        {"version": 1, "files": {"calc.py": {"executable": [1], "run": [True]}}},
        {"version": 1, "files": {"calc.py": {"executable": [1.5], "run": []}}},
        {"version": 1, "files": {"calc.py": "lines"}},
    ],
)
def test_anything_else_is_refused(bad: object) -> None:
    # the honest twin is test_the_tracers_data_is_read
    with pytest.raises(CoverageDataError):
        parse_line_data(spool_of(bad), ["calc.py"])


def _data(run: set[int], executable: set[int], inside: set[int]) -> LineData:
    lines = FileLines(frozenset(executable), frozenset(inside), frozenset(run))
    return LineData("settrace (python 3.11.2)", {"calc.py": lines})


def test_the_figures_and_the_lines_nothing_ran() -> None:
    changed = {"calc.py": (2, 3, 9, 10, 11, 12)}  # 3 is a blank line: not executable
    head = _data({1, 2, 9}, {1, 2, 9, 10, 12}, {2, 10, 12})
    proof = _data({1, 2}, {1, 2, 9, 10, 12}, {2, 10, 12})
    cov = summarize(changed, ["calc.py"], head, [proof], 1)
    (entry,) = cov.files
    assert (entry.changed, entry.run, entry.proof, entry.not_run) == (
        (2, 9, 10, 12),
        (2, 9),
        (2,),
        (10, 12),
    )
    assert headline(cov) == "changed lines run: 2 of 4 (by the proof: 1)"
    # 10 and 12 are neighbours among the changed executable lines (11 is not executable)
    assert not_run_spans(cov) == ["calc.py:10-12"]
    assert not any("inside functions" in m for m in meaning(cov))


def test_a_proof_that_ran_only_import_time_lines_is_said_as_such() -> None:
    changed = {"calc.py": (1, 2)}
    head = _data({1, 2}, {1, 2}, {2})
    only_import = _data({1}, {1, 2}, {2})
    said = meaning(summarize(changed, ["calc.py"], head, [only_import], 1))
    assert any("ran none of the changed lines inside functions" in m for m in said)
    ran_body = meaning(summarize(changed, ["calc.py"], head, [head], 1))
    assert not any("inside functions" in m for m in ran_body)


def test_a_proof_rerun_without_data_is_not_a_measured_zero() -> None:
    cov = summarize({"calc.py": (1, 2)}, ["calc.py"], _data({1, 2}, {1, 2}, {2}), [], 3)
    assert not cov.proof_measured
    assert headline(cov) == "changed lines run: 2 of 2 (by the proof: not measured)"
    assert not any("inside functions" in m for m in meaning(cov))


def test_ranges_group_neighbours_only() -> None:
    assert ranges([1, 2, 5], [1, 2, 3, 5]) == [(1, 2), (5, 5)]  # 3 ran: it splits
    assert ranges([1, 4, 40], [1, 4, 40]) == [(1, 4), (40, 40)]  # two lines apart, not 35
    assert ranges([], [1, 2]) == []


def test_not_measured_is_said_and_rendered_escaped() -> None:
    cov = PatchCoverage(state=CoverageState.NOT_MEASURED, note="not measured: bun *x*")
    assert headline(cov) == "changed lines run: not measured: bun *x*"
    assert "\\*x\\*" in "\n".join(coverage_section(cov))


def test_the_bootstrap_rides_in_the_pytest_command_only() -> None:
    command = PytestRunner().command("/work/vpr-report-" + "a" * 32 + ".xml")
    path = "/work/vpr-report-" + "b" * 32 + ".json"
    traced = instrument(command, ["calc.py"], path)
    assert traced is not None and bootstrap(["calc.py"], path) in traced
    assert "'" not in bootstrap(["it's.py"], path)  # it sits inside the command's '...'
    assert instrument("own-command --report x", ["calc.py"], path) is None


def test_a_session_measures_only_its_runners_files(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("x = 1\n")
    (tmp_path / "app.js").write_text("x = 1\n")
    changed = {"calc.py": (1,), "app.js": (1,), "gone.py": (1,), "empty.py": ()}
    assert Session(runner_named("pytest"), tmp_path, changed).files == ["calc.py"]
    bun = Session(runner_named("bun"), tmp_path, changed)
    assert bun.files == [] and bun.reason.startswith("not measured: bun")


def _istanbul(count_of_line_6: int = 0) -> dict[str, object]:
    statements = {str(n): {"start": {"line": n}, "end": {"line": n}} for n in range(1, 9)}
    counts = {str(n): 1 for n in range(1, 9)} | {"5": 0, "6": count_of_line_6, "7": 0}
    fn = {"loc": {"start": {"line": 5}, "end": {"line": 8}}}
    return {"/work/calc.js": {"statementMap": statements, "s": counts, "fnMap": {"0": fn}}}


JS = "function add(a, b) {\n  return a + b;\n}\n\nfunction unused(x) {\n  const y = x;\n  return y;\n}\n"


def test_jests_istanbul_json_is_read_with_the_lines_text(tmp_path: Path) -> None:
    (tmp_path / "calc.js").write_text(JS)
    data = parse_line_data(spool_of(_istanbul()), ["calc.js"], tmp_path)
    lines = data.files["calc.js"]
    # 3 and 8 are closing braces, 4 is blank: not executable
    assert lines.executable == {1, 2, 5, 6, 7}
    assert lines.run == {1, 2, 3, 4, 8} and lines.in_functions == {6, 7, 8}


@pytest.mark.parametrize(
    "bad",
    [
        {"/work/other.js": {"statementMap": {}, "s": {}, "fnMap": {}}},
        {"/work/calc.js": {"statementMap": {"0": {"start": {"line": 1}}}, "s": {}, "fnMap": {}}},
        {"/work/calc.js": {"statementMap": {}, "s": {}}},
        {
            "/work/calc.js": {
                "statementMap": {"0": {"start": {}, "end": {}}},
                "s": {"0": 1},
                "fnMap": {},
            }
        },
    ],
)
def test_other_istanbul_json_is_refused(bad: object, tmp_path: Path) -> None:
    # the honest twin: test_jests_istanbul_json_is_read_with_the_lines_text
    with pytest.raises(CoverageDataError):
        parse_line_data(spool_of(bad), ["calc.js"], tmp_path)


def test_jest_gets_v8_coverage_before_the_rerun_words_and_keeps_its_exit_code() -> None:
    from verify_pr.runners.jest.runner import JestRunner
    from verify_pr.runners.node.coverage import instrument_for

    jest = instrument_for("jest")
    assert jest is not None and instrument_for("bun") is None
    command = JestRunner().command("/work/vpr-report-" + "a" * 32 + ".json") + " -t x -- t.js"
    traced = jest(command, ["src/calc.js"], "/work/vpr-report-" + "b" * 32 + ".json")
    assert traced is not None
    flags = traced.index("--coverageProvider=v8")
    assert flags < traced.index(" -- t.js") and "--collectCoverageFrom=src/calc.js" in traced
    assert "--coverageThreshold={}" in traced and traced.endswith("; exit $vpr_rc")
    assert jest(command, ["a b.js"], "/work/x") is None  # a name a shell or glob could misread


def test_figures_over_their_bounds_are_not_measured_never_a_crash(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("x = 1\n")
    many = tuple(range(1, 100_002))
    session = Session(runner_named("pytest"), tmp_path, {"calc.py": many})
    lines = FileLines(frozenset(many), frozenset(), frozenset(many))
    session.head = LineData("ast-probes (python 3.11.2)", {"calc.py": lines})
    cov = session.result(["calc.py"])
    assert cov.state is CoverageState.NOT_MEASURED and "bounds" in cov.note
    # the twin: within the bounds, the same session measures
    session.changed = {"calc.py": many[:10]}
    assert session.result(["calc.py"]).state is CoverageState.MEASURED


@pytest.mark.parametrize(
    "module",
    [
        "verify/runs/rules.py",
        "verify/decision/decide.py",
        "verify/runs/testcases.py",
        "publish/conclusion.py",
    ],
)
def test_no_verdict_or_conclusion_reads_patch_coverage(module: str) -> None:
    # the data comes from inside the PR's process: it must never make a verdict green. The
    # one use, a proof must run changed code (``proof_coverage``), only takes proofs away
    source = (Path(__file__).parents[4] / "src" / "verify_pr" / module).read_text()
    assert "coverage" not in source.replace("proof_coverage", "")


def test_the_scan_above_would_see_a_use() -> None:
    # positive control: the hook module that does use it is found by the same scan
    source = (Path(__file__).parents[4] / "src/verify_pr/verify/compare_run.py").read_text()
    assert "coverage" in source
