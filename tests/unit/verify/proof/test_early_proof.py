"""The proof's re-runs started beside base's own run are kept only when they are the re-runs
the serial order runs: the same tests on the same trees."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from tests.unit.verify.helpers import FIXED_BASE, FIXED_HEAD, F, P, outcome
from verify_pr.runners.registry import runner_named
from verify_pr.verify.coverage.patch import LineData, Session
from verify_pr.verify.proof import early as early_proof
from verify_pr.verify.proof import rerun
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan

PLAN = SuitePlan(
    runner_named("pytest"), "python3 -m pytest --junitxml=/tmp/r.xml", "/tmp/r.xml", "pytest"
)


def _trees(tmp_path: Path) -> tuple[Path, Path, Path]:
    trees = (tmp_path / "base", tmp_path / "before", tmp_path / "after")
    for tree in trees:
        tree.mkdir(parents=True)
    (trees[0] / "m.py").write_text("def test_bug(): pass\n")  # base's own file: never moved
    return trees


class _Runs:
    """The sandboxes, as the re-runs see them: the bug fails on before, passes on after."""

    def __init__(self, before: Path) -> None:
        self.before = before
        self.jobs: list[tuple[Path, SuitePlan]] = []

    def __call__(self, jobs: list[tuple[Path, SuitePlan]]) -> list[SuiteOutcome]:
        self.jobs += jobs
        return [outcome(FIXED_BASE if tree == self.before else FIXED_HEAD) for tree, _ in jobs]


def _start(tmp_path: Path, code: list[str], session: Session) -> tuple[Any, _Runs]:
    trees = _trees(tmp_path)
    runs = _Runs(trees[1])
    pair = (outcome(FIXED_BASE), outcome(FIXED_HEAD))
    early = early_proof.start(PLAN, trees, code, pair, 3, session, runs)
    return early, runs


def test_the_early_re_runs_are_kept_when_the_proof_is_the_same(tmp_path: Path) -> None:
    session = Session(runner_named("pytest"), tmp_path, {})
    early, runs = _start(tmp_path, [], session)
    assert early is not None and early.proofs == ("m.py::m::t_bug",)
    assert len(runs.jobs) == 6  # 3 repetitions per side, each its own sandbox
    kept = early_proof.kept(early, ["m.py::m::t_bug"], (), session)
    assert kept is early.confirmation
    assert kept == rerun.Confirmation(True, (), (), ("m.py::m::t_bug",))


def test_they_are_dropped_when_base_own_run_changes_the_proof(tmp_path: Path) -> None:
    # base's own run discounted the proof (or changed its order): the serial re-runs run again
    session = Session(runner_named("pytest"), tmp_path, {})
    session.proofs.append(cast(LineData, "kept"))
    session.proof_runs = 1
    early, _ = _start(tmp_path, [], session)
    session.proofs.append(cast(LineData, "early"))  # what the early re-runs measured
    session.proof_runs += 6
    assert early_proof.kept(early, [], (), session) is None
    assert session.proofs == ["kept"] and session.proof_runs == 1
    swapped = early_proof.start(
        PLAN,
        _trees(tmp_path / "two"),
        [],
        (outcome({"a": F, "b": F}), outcome({"a": P, "b": P})),
        1,
        session,
        _Runs(tmp_path),
    )
    assert early_proof.kept(swapped, ["m.py::m::b", "m.py::m::a"], (), session) is None
    assert early_proof.kept(swapped, ["m.py::m::a", "m.py::m::b"], (), session) is not None


def test_they_are_dropped_when_a_path_moved_to_the_test_side(tmp_path: Path) -> None:
    session = Session(runner_named("pytest"), tmp_path, {})
    early, _ = _start(tmp_path, [], session)
    assert early_proof.kept(early, ["m.py::m::t_bug"], ("lib/new_test.py",), session) is None
    assert early_proof.kept(None, ["m.py::m::t_bug"], (), session) is None


def test_no_early_re_runs_when_before_and_head_already_move_a_path(tmp_path: Path) -> None:
    # head's report places a test in a code path new in the PR: before runs again first
    (tmp_path / "base").mkdir()
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    runs = _Runs(tmp_path / "before")
    trees = (tmp_path / "base", tmp_path / "before", tmp_path / "after")
    pair = (outcome(FIXED_BASE), outcome(FIXED_HEAD))
    session = Session(runner_named("pytest"), tmp_path, {})
    assert early_proof.start(PLAN, trees, ["m.py"], pair, 3, session, runs) is None
    assert runs.jobs == []
    # the honest twin: the same code path on base's side (m.py exists there) is mixed, not
    # moved: the re-runs start, and the mixed file's test is no proof
    early, runs = _start(tmp_path / "twin", ["m.py"], session)
    assert early is not None and early.proofs == () and runs.jobs == []
