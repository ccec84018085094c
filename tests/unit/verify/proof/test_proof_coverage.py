"""A proof must run changed code (``verify/proof/ran_changed.py``): each proof's standing from
its re-runs' data on both sides, and what the verdict says of it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tests.unit.verify.helpers import P, outcome
from verify_pr.models.compare import ChangedCode
from verify_pr.models.sandbox import ReportStatus
from verify_pr.runners.registry import runner_named
from verify_pr.sandbox.run import SandboxRun
from verify_pr.sandbox.spool import ReportSpool
from verify_pr.verify.coverage.patch import Session
from verify_pr.verify.proof.ran_changed import ProofCode, assess, note, refusal
from verify_pr.verify.proof.rerun import Confirmation, Rerun
from verify_pr.verify.runs.suite import SuiteOutcome


def _traced(run: list[int] | None) -> SuiteOutcome:
    """A re-run whose tracer returned ``run`` as calc.py's lines (None: nothing came back)."""
    base = outcome({"t_bug": P})
    spool = None
    if run is not None:
        doc = {"version": 1, "files": {"calc.py": {"executable": [1, 2, 3], "run": run}}}
        spool = ReportSpool()
        spool.write(json.dumps(doc).encode())
    state = ReportStatus.RETURNED if spool else ReportStatus.MISSING
    result = base.run.result.model_copy(update={"coverage": state})
    return dataclasses.replace(base, run=SandboxRun(result, b"", None, spool))


def _session(tmp_path: Path) -> Session:
    (tmp_path / "after").mkdir()
    (tmp_path / "before").mkdir()
    (tmp_path / "after" / "calc.py").write_text("a\nb\nc\n")
    (tmp_path / "before" / "calc.py").write_text("a\nb\nc\n")
    return Session(
        runner_named("pytest"),
        tmp_path / "after",
        {"calc.py": (2,)},
        {"calc.py": (3,)},
        tmp_path / "before",
    )


def _confirm(*runs: tuple[bool, SuiteOutcome]) -> Confirmation:
    made = tuple(Rerun(("t_bug",), on_before, False, o) for on_before, o in runs)
    return Confirmation(True, rerun=("t_bug",), runs=made)


def test_a_changed_line_run_on_head_or_a_removed_one_on_before_counts(tmp_path: Path) -> None:
    session = _session(tmp_path)
    head_ran = assess(
        ["t_bug"], ["calc.py"], _confirm((True, _traced([1])), (False, _traced([2]))), session
    )
    assert head_ran["t_bug"] == ProofCode(ChangedCode.RAN, ("head calc.py:2",))
    before_ran = assess(
        ["t_bug"], ["calc.py"], _confirm((True, _traced([3])), (False, _traced([1]))), session
    )
    assert before_ran["t_bug"] == ProofCode(ChangedCode.RAN, ("before calc.py:3",))


def test_no_changed_line_no_data_or_no_code_is_no_proof(tmp_path: Path) -> None:
    session = _session(tmp_path)
    none_ran = _confirm((True, _traced([1])), (False, _traced([1, 3])))
    assert assess(["t_bug"], ["calc.py"], none_ran, session)["t_bug"].state is ChangedCode.NOT_RUN
    forged = outcome({"t_bug": P})
    spool = ReportSpool()
    spool.write(b'{"version": 1, "files": {"other.py": {"run": [1]}}}')
    result = forged.run.result.model_copy(update={"coverage": ReportStatus.RETURNED})
    forged = dataclasses.replace(forged, run=SandboxRun(result, b"", None, spool))
    refused = _confirm((True, _traced([1])), (False, forged))
    assert assess(["t_bug"], ["calc.py"], refused, session)["t_bug"].state is ChangedCode.NO_DATA
    assert assess(["t_bug"], [], none_ran, session)["t_bug"].state is ChangedCode.NO_CODE
    assert (
        assess(["t_other"], ["calc.py"], none_ran, session)["t_other"].state
        is ChangedCode.NOT_RERUN
    )


def test_no_tracer_or_no_reruns_is_not_measured(tmp_path: Path) -> None:
    session = _session(tmp_path)
    untraced = outcome({"t_bug": P})  # coverage not requested: the runner has no tracer
    plain = _confirm((True, untraced), (False, untraced))
    assert assess(["t_bug"], ["calc.py"], plain, session)["t_bug"].state is ChangedCode.NOT_MEASURED
    assert (
        assess(["t_bug"], ["calc.py"], Confirmation(), session)["t_bug"].state
        is ChangedCode.NOT_MEASURED
    )
    # nothing came back from a re-run (a vitest config that cannot load our provider), or
    # the re-run ran the whole suite: unknown, said, never a claim
    missing = _confirm((True, _traced([1])), (False, _traced(None)))
    # pytest's tracer writes unless the process ends itself first: no evidence, no proof
    assert assess(["t_bug"], ["calc.py"], missing, session)["t_bug"].state is ChangedCode.NO_DATA
    session.runner = runner_named("vitest")  # the same files: only the runner differs
    found = assess(["t_bug"], ["calc.py"], missing, session)
    assert found["t_bug"].state is ChangedCode.NOT_MEASURED
    session.runner = runner_named("pytest")
    whole = Confirmation(
        True, rerun=("t_bug",), runs=(Rerun(("t_bug",), False, True, _traced([2])),)
    )
    assert assess(["t_bug"], ["calc.py"], whole, session)["t_bug"].state is ChangedCode.NOT_MEASURED


@pytest.mark.parametrize(
    ("states", "said"),
    [
        ((ChangedCode.NO_CODE,), "the PR changes no code file"),
        ((ChangedCode.NOT_RUN,), "1 ran none of the changed lines"),
        (
            (ChangedCode.NOT_RUN, ChangedCode.NO_DATA),
            "1 returned no coverage data, or data that is not",
        ),
    ],
)
def test_the_refusal_names_why(states: tuple[ChangedCode, ...], said: str) -> None:
    ids = [f"t{i}" for i in range(len(states))]
    found = {i: ProofCode(s) for i, s in zip(ids, states, strict=True)}
    why = refusal(ids, found)
    assert why is not None and said in why


def test_one_counting_proof_is_enough_and_the_reason_says_how() -> None:
    found = {"a": ProofCode(ChangedCode.NOT_RUN), "b": ProofCode(ChangedCode.RAN, ("head x.py:1",))}
    assert refusal(["a", "b"], found) is None
    assert "1 of them ran a line the PR changed" in note(["a", "b"], found)
    weak = {"a": ProofCode(ChangedCode.NOT_MEASURED)}
    assert refusal(["a"], weak) is None
    assert "not measured" in note(["a"], weak)
    assert refusal(["a"], None) is None and note(["a"], None) == ""
