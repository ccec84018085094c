"""Base's own run starts what it will surely run as soon as base's collection ends (issue 34),
in real containers: the tests of the files the PR edits and those base's collection found
marked to be skipped (pytest's mark, unittest's decorator), by id, beside before and head; what
before and head add (a test skipped at run time in a file the PR does not edit) runs as a second
process, and the two are read as one run.

The control is the same compare with the early start turned off (one process by id after
before and head, as before issue 34's schedule): the verdict, the proofs and base's own results,
id by id, are the same, and the publish job accepts both. The runs each compare made are
recorded, so the test shows the split happened (two runs by id of base's tests against one).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareResult
from verify_pr.publish.consistency import compare_problems
from verify_pr.verify.pairing import base_own
from verify_pr.verify.runs.planner import Planner
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IMAGE = "verify-pr-python:local"
CALC = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
TEST_EDIT = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 2) == 1\n"
TEST_ADD = "\n\ndef test_add():\n    from calc import add\n\n    assert add(2, 2) == 4\n"
TEST_OTHER = (
    "import unittest\n\nimport pytest\n\n\ndef test_plain():\n    assert True\n\n\n"
    "@pytest.mark.skip(reason='not here')\ndef test_skipped():\n    assert False\n\n\n"
    "def test_skipped_at_run_time():\n    pytest.skip('not now')\n\n\n"
    "class TestU(unittest.TestCase):\n    @unittest.skip('not here either')\n"
    "    def test_u(self):\n        assert False\n"
)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    require_docker(IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("base_own_early") / "repo")
    files = {
        "pytest.ini": "[pytest]\n",
        "calc.py": CALC,
        "tests/test_edit.py": TEST_EDIT,
        "tests/test_other.py": TEST_OTHER,
    }
    base = commit(repo, dict(files), "base: add is wrong")
    fixed = {"calc.py": CALC.replace("return a - b", "return a + b", 1)}
    head = commit(repo, {**fixed, "tests/test_edit.py": TEST_EDIT + TEST_ADD}, "fix add, test it")
    return repo, base, head


def _compare(
    tmp_path: Path, repo: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> tuple[CompareResult, list[tuple[str, ...]]]:
    """The compare, and the tests each run by id of base's tests selected."""
    selected: list[tuple[str, ...]] = []
    inner = Planner.run

    def recorded(planner: Planner, job: tuple[Path, SuitePlan]) -> SuiteOutcome:
        words = shlex.split(job[1].command)
        if "--" in words and "tests/test_edit.py::test_add" not in words:
            selected.append(tuple(words[words.index("--") + 1 :]))
        return inner(planner, job)

    monkeypatch.setattr(Planner, "run", recorded)
    path, base, head = repo
    _code, result, _summary = compare(tmp_path, path, base, head, IMAGE, "--flake-runs", "1")
    assert compare_problems(result, head) == [], result.reasons
    return result, selected


def test_the_edited_files_tests_run_early_and_the_rest_joins_them(
    tmp_path: Path, repo: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    early, selected = _compare(tmp_path / "early", repo, monkeypatch)
    # two processes: the edited file's test with the marked ones, then what before and head add
    assert sorted(selected) == [
        (
            "tests/test_edit.py::test_sub",
            "tests/test_other.py::test_skipped",
            "tests/test_other.py::TestU::test_u",
        ),
        ("tests/test_other.py::test_skipped_at_run_time",),
    ]
    # the control: no early start, one process by id after before and head
    monkeypatch.setattr(base_own.OwnRun, "_start_early", lambda _self: None)
    alone, selected_alone = _compare(tmp_path / "alone", repo, monkeypatch)
    assert selected_alone == [
        (
            "tests/test_edit.py::test_sub",
            "tests/test_other.py::test_skipped",
            "tests/test_other.py::test_skipped_at_run_time",
            "tests/test_other.py::TestU::test_u",
        )
    ]
    assert early.verdict == alone.verdict and early.verdict.value == "VERIFIED"
    assert [p.id for p in early.proofs] == [p.id for p in alone.proofs]
    assert early.base_own is not None and alone.base_own is not None
    assert {c.id: c.status for c in early.base_own.testcases} == {
        c.id: c.status for c in alone.base_own.testcases
    }
    assert early.transitions == alone.transitions
