"""Patch coverage through the real publish entry point: the headline in the check run, a
notice on each range of changed lines nothing ran (files of the head commit only, lines in
range), and nothing of it in the conclusion."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.action.compare_builders import compare_artifact, compare_result
from tests.github_fake.server import FakeGitHub
from verify_pr.models.coverage import CoverageState, FileCoverage, PatchCoverage

Publish = Callable[..., dict[str, Any]]


def _coverage() -> PatchCoverage:
    in_tree = FileCoverage(
        path="tests/test_x.py",
        measured=True,
        changed=(2, 9, 10, 11, 60),
        in_functions=(10, 11),
        run=(2,),
        proof=(2,),
        not_run=(9, 10, 11, 60),
    )
    # not a file of the head commit: no annotation
    gone = FileCoverage(path="elsewhere.py", measured=True, changed=(1,), not_run=(1,))
    return PatchCoverage(
        state=CoverageState.MEASURED,
        tool="ast-probes (python 3.11.2)",
        changed_lines=6,
        run_lines=1,
        proof_lines=1,
        proof_measured=True,
        changed_in_functions=2,
        files=(in_tree, gone),
    )


def test_notices_on_the_lines_nothing_ran(publish: Publish, github_fake: FakeGitHub) -> None:
    github_fake.blob_sizes["tests/test_x.py"] = 40  # at most 41 lines: line 60 goes on 1
    result = compare_result().model_copy(update={"patch_coverage": _coverage()})
    check = publish(compare_artifact(result))
    assert check["conclusion"] == "success"  # information only: the verdict decides
    summary = check["output"]["summary"]
    assert "changed lines run: 1 of 6 (by the proof: 1)" in summary
    assert "`tests/test_x.py:9-11`" in summary and "`elsewhere.py:1`" in summary
    (run_id,) = github_fake.check_runs
    notes = [
        (n["annotation_level"], n["path"], n["start_line"], n["end_line"])
        for n in github_fake.annotations[run_id]
    ]
    assert notes == [("notice", "tests/test_x.py", 9, 11), ("notice", "tests/test_x.py", 1, 1)]


def test_without_coverage_there_is_no_notice(publish: Publish, github_fake: FakeGitHub) -> None:
    # the twin: the same result without patch coverage
    check = publish(compare_artifact(compare_result()))
    assert "changed lines run" not in check["output"]["summary"]
    (run_id,) = github_fake.check_runs
    assert all(n["annotation_level"] != "notice" for n in github_fake.annotations.get(run_id, []))
