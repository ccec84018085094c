"""Builders for compare results and compare artifacts, as `verify-pr compare` writes them."""

from __future__ import annotations

from tests.action.helpers import HEAD_SHA, verdict_file, zip_files
from verify_pr.contract import COMPARE_RESULT_FILE, COMPARE_SUMMARY_FILE
from verify_pr.models.compare import (
    ChangedCode,
    CompareResult,
    CompareVerdict,
    Proof,
    Transition,
    side_file,
)
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.transitions import classify, count
from verify_pr.models.verdict import Verdict, VerdictFile

BASE_SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
PROOF = Proof(
    id="tests/test_x.py::tests.test_x::test_fix",
    file="tests/test_x.py",
    line=4,
    message=None,
    reruns=1,
    changed_code=ChangedCode.RAN,
    changed_code_lines=("head x.py:1",),
)


def case(status: TestStatus, name: str = "test_fix", file: str = "tests/test_x.py") -> TestCase:
    return TestCase.build(
        name=name,
        classname="tests.test_x",
        file=file,
        line=4,
        status=status,
        message=None if status is TestStatus.PASSED else "assert 1 == 2",
    )


def compare_result(
    base: VerdictFile | None = None,
    head: VerdictFile | None = None,
    verdict: CompareVerdict = CompareVerdict.VERIFIED,
    reasons: tuple[str, ...] = ("1 test(s) fail on base and pass on head",),
    head_sha: str = HEAD_SHA,
) -> CompareResult:
    base = base or verdict_file(Verdict.FAIL, (case(TestStatus.FAILED),))
    head = head or verdict_file(Verdict.PASS, (case(TestStatus.PASSED),))
    transitions = classify(
        {c.id: c.status for c in base.testcases}, {c.id: c.status for c in head.testcases}
    )
    return CompareResult(
        verdict=verdict,
        reasons=reasons,
        base_sha=BASE_SHA,
        head_sha=head_sha,
        strict_harness=False,
        harness_files_changed=(),
        counts=count(transitions),
        transitions=tuple(transitions),
        base=base,
        head=head,
        # a proof that ran the PR's changed code (``policy/proof.py``), under a plain
        # id: the tests of hostile ids look at the transitions' rendering
        code_paths=("x.py",),
        proofs=(PROOF,)
        if any(t.transition is Transition.FAIL_TO_PASS for t in transitions)
        else (),
    )


def compare_files(result: CompareResult | None = None, **extra: bytes) -> dict[str, bytes]:
    r = result or compare_result()
    files = {
        COMPARE_RESULT_FILE: r.model_dump_json().encode(),
        COMPARE_SUMMARY_FILE: b"## verify-pr compare\n",
    }
    for side, v in (("base", r.before), ("head", r.head)):
        files[side_file(side, "result.json")] = v.sandbox.model_dump_json().encode()
        files[side_file(side, "verdict.json")] = v.model_dump_json().encode()
        files[side_file(side, "output.txt")] = b"1 failed\n" if side == "base" else b"1 passed\n"
    files.update(extra)
    return files


def compare_artifact(result: CompareResult | None = None, **extra: bytes) -> bytes:
    return zip_files(compare_files(result, **extra))
