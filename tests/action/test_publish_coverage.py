"""Patch coverage through the real publish entry point: the headline in the check run, a
notice on each range of changed lines nothing ran (files of the head commit only, lines in
range), and nothing of it in the conclusion."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.action.compare_builders import compare_artifact, compare_result
from tests.action.helpers import _untrusted, verdict_file, zip_files
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


def _run_coverage() -> PatchCoverage:
    # as `verify-pr run --diff-base` writes it: no proof, so no proof lines
    entry = FileCoverage(
        path="test_ok.py", measured=True, changed=(2, 9, 10), run=(2,), not_run=(9, 10)
    )
    return PatchCoverage(
        state=CoverageState.MEASURED,
        tool="ast-probes (python 3.11.2)",
        changed_lines=3,
        run_lines=1,
        has_proof=False,
        files=(entry,),
    )


def _run_artifact(coverage: object) -> bytes:
    verdict = json.loads(verdict_file().model_dump_json())
    verdict["patch_coverage"] = coverage
    files = {
        "result.json": verdict_file().sandbox.model_dump_json().encode(),
        "verdict.json": json.dumps(verdict).encode(),
        "output.txt": b"1 passed\n",
    }
    return zip_files(files)


def test_a_run_artifact_shows_its_coverage_and_notices(
    publish: Publish, github_fake: FakeGitHub
) -> None:
    github_fake.blob_sizes["test_ok.py"] = 400
    check = publish(_run_artifact(_run_coverage().model_dump(mode="json")))
    assert check["conclusion"] == "success"  # information only: the verdict decides
    summary = check["output"]["summary"]
    assert "changed lines run: 1 of 3 (no proof in mode run)" in summary
    assert "by the proof" not in summary and "`test_ok.py:9-10`" in summary
    (run_id,) = github_fake.check_runs
    notes = [
        (n["annotation_level"], n["path"], n["start_line"], n["end_line"])
        for n in github_fake.annotations[run_id]
    ]
    assert notes == [("notice", "test_ok.py", 9, 10)]


def _forged(**changes: Any) -> dict[str, Any]:
    cov = _run_coverage().model_dump(mode="json")
    cov.update(changes)
    return cov


@pytest.mark.parametrize(
    ("coverage", "said"),
    [
        (_forged(run_lines=3), "totals do not follow"),
        (_forged(has_proof=True, proof_measured=True), "claims a proof"),
        (_forged(files=[{**_forged()["files"][0], "not_run": [99]}]), "not changed lines"),
        (_forged(files=[{**_forged()["files"][0], "not_run": [9]}]), "do not add up"),
        (_forged(state="not_measured"), "holds figures"),
    ],
)
def test_a_forged_run_coverage_block_is_not_trusted(
    publish: Publish, coverage: dict[str, Any], said: str
) -> None:
    check = publish(_run_artifact(coverage))
    _untrusted(check)
    assert said in check["output"]["summary"]
    assert "changed lines run" not in check["output"]["summary"]


@pytest.mark.parametrize(
    "coverage",
    [
        _forged(note="x" * 501),  # over the note's bound
        _forged(files=[_forged()["files"][0]] * 201),  # over the files' cap
        _forged(surprise=1),  # a field the model does not know
    ],
)
def test_an_oversized_run_coverage_block_is_refused(
    publish: Publish, coverage: dict[str, Any]
) -> None:
    check = publish(_run_artifact(coverage))
    _untrusted(check)
    assert "changed lines run" not in check["output"]["summary"]


def test_a_compared_run_carrying_coverage_is_not_trusted(publish: Publish) -> None:
    # the comparison holds the figures; a side that carries its own is forged
    result = compare_result()
    head = result.head.model_copy(update={"patch_coverage": _run_coverage()})
    check = publish(compare_artifact(result.model_copy(update={"head": head})))
    _untrusted(check)
