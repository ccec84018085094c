"""The publish step with a compare artifact (mode compare), through the loopback API fake.

A compare artifact is as attacker-controlled as a run artifact: every file must match its
strict model, the files must agree with each other and with the trusted event, and the trust
rule is unchanged (a PR that edits the workflow is NOT TRUSTED whatever the artifact claims).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import Any

import pytest

from tests.action.compare_builders import (
    case,
    compare_artifact,
    compare_files,
    compare_result,
)
from tests.action.helpers import (
    HOSTILE_NAME,
    WORKFLOW_PATH,
    _untrusted,
    artifact,
    verdict_file,
    zip_files,
)
from tests.github_fake.server import FakeGitHub
from verify_pr.contract import COMPARE_RESULT_FILE
from verify_pr.models.compare import CompareVerdict
from verify_pr.models.report import TestStatus, Totals
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.publish import main as publish_main
from verify_pr.publish.checks import Conclusion

Publish = Callable[..., dict[str, Any]]


def _refused(check: dict[str, Any], why: str) -> None:
    _untrusted(check)
    assert "artifact was refused" in check["output"]["title"]
    assert why in check["output"]["summary"].replace("\\", ""), check["output"]["summary"]


def test_trusted_verified_is_success(publish: Publish) -> None:
    check = publish(compare_artifact())
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert check["output"]["title"] == "VERIFIED"
    summary = check["output"]["summary"]
    assert "Verdict: VERIFIED (base against head)" in summary
    assert (
        "FAIL_TO_PASS (1)" in summary
        and "fails on base's code with the PR's tests and passes on head" in summary
    )
    assert "NOT TRUSTED" not in summary


@pytest.mark.parametrize(
    ("verdict", "conclusion", "meaning"),
    [
        (CompareVerdict.NOT_PROVEN, "neutral", "This is not a pass"),
        (CompareVerdict.BLOCKED, "action_required", "says nothing about the PR"),
    ],
)
def test_not_proven_and_blocked_say_what_they_mean(
    publish: Publish, verdict: CompareVerdict, conclusion: str, meaning: str
) -> None:
    result = compare_result(verdict=verdict, reasons=("why not",))
    check = publish(compare_artifact(result))
    assert check["conclusion"] == conclusion
    assert check["output"]["title"] == verdict.value.replace("_", " ")
    assert meaning in check["output"]["summary"]


@pytest.mark.parametrize("verdict", list(CompareVerdict))
@pytest.mark.parametrize("trusted", [True, False])
def test_compare_conclusion_table(verdict: CompareVerdict, trusted: bool) -> None:
    trust = publish_main.Trust([] if trusted else ["forged"])
    expected = {
        CompareVerdict.VERIFIED: Conclusion.SUCCESS,
        CompareVerdict.NOTHING_TO_PROVE: Conclusion.SUCCESS,
        CompareVerdict.NOT_PROVEN: Conclusion.NEUTRAL,
        CompareVerdict.BLOCKED: Conclusion.ACTION_REQUIRED,
    }[verdict]
    got = publish_main.conclude(verdict, trust)
    assert got == (expected if trusted else Conclusion.ACTION_REQUIRED)
    assert publish_main.conclude(None, trust) == Conclusion.ACTION_REQUIRED


def _clean(*extra: TestStatus) -> VerdictFile:
    """A run in which every test passes (``extra``: more tests, by status)."""
    cases = [case(TestStatus.PASSED, name="test_ok")]
    cases += [case(status, name=f"test_{i}") for i, status in enumerate(extra)]
    failing = any(s in (TestStatus.FAILED, TestStatus.ERROR) for s in extra)
    return verdict_file(Verdict.FAIL if failing else Verdict.PASS, tuple(cases))


def _nothing(base: VerdictFile, head: VerdictFile, **update: Any) -> bytes:
    result = compare_result(base, head, CompareVerdict.NOTHING_TO_PROVE, ("nothing to prove",))
    return compare_artifact(result.model_copy(update=update))


def test_trusted_nothing_to_prove_is_success_and_says_it_proves_no_fix(publish: Publish) -> None:
    check = publish(_nothing(_clean(), _clean()))
    assert check["conclusion"] == "success", check["output"]["summary"]
    title = check["output"]["title"]
    assert title == (
        "NOTHING TO PROVE: no test goes from failing to passing; nothing that passed broke"
    )
    summary = check["output"]["summary"]
    assert "Verdict: NOTHING TO PROVE (base against head)" in summary
    assert "it is not VERIFIED: the PR proves no fix" in summary
    assert "VERIFIED" not in title and "NOT TRUSTED" not in summary


def test_nothing_to_prove_with_a_docs_file_and_base_own_run_is_trusted(publish: Publish) -> None:
    """The positive control of the rows below: base's own run there, and nothing against (a
    data file is refused: the tests read it in the PR's version on both sides, ``policy``)."""
    update = {"base_own": _clean(), "other_paths": ("docs/x.md",)}
    check = publish(_nothing(_clean(), _clean(), **update))
    assert check["conclusion"] == "success", check["output"]["summary"]


@pytest.mark.parametrize(
    ("base", "head", "update", "why"),
    [
        # a test that passed on base fails on head, under a claim that nothing broke
        (_clean(TestStatus.PASSED), _clean(TestStatus.FAILED), {}, "a test regressed"),
        (
            _clean(TestStatus.FAILED),
            _clean(TestStatus.PASSED),
            {},
            "a test fails on base and passes",
        ),
        (_clean(TestStatus.PASSED), _clean(), {}, "a test was removed"),
        (_clean(TestStatus.PASSED), _clean(TestStatus.SKIPPED), {}, "of base are skipped on head"),
        (
            _clean(TestStatus.FAILED),
            _clean(TestStatus.FAILED),
            {},
            "suite does not pass on both sides",
        ),
        (_clean(), _clean(), {"harness_files_changed": ("conftest.py",)}, "harness file(s)"),
        (
            _clean(),
            _clean(),
            {"base_own": _clean(), "edited_test_paths": ("tests/test_x.py",)},
            "the PR changes test paths of base",
        ),
        # a data file the tests may read, in the PR's version on both sides (the verifier's
        # rule, ``policy.nothing``; the publish job accepted it before the policy was shared)
        (
            _clean(),
            _clean(),
            {"base_own": _clean(), "other_paths": ("data/x.json",)},
            "neither test nor code",
        ),
        # a data file changed (the PR's version on both sides): base's own run must be there
        (_clean(), _clean(), {"other_paths": ("data/x.json",)}, "base's own run is missing"),
        (
            _clean(),
            _clean(),
            {"base_own": _clean(TestStatus.PASSED), "other_paths": ("data/x.json",)},
            "of base's own run are gone on both sides",
        ),
        (
            _clean(TestStatus.FAILED),
            _clean(TestStatus.FAILED),
            {"base_own": _clean(TestStatus.PASSED), "other_paths": ("data/x.json",)},
            "that pass in base's own run fail on head",
        ),
        (
            _clean(),
            _clean(),
            {"expected_failure_markers": ("t.py",)},
            "adds expected-failure markers",
        ),
    ],
)
def test_a_forged_nothing_to_prove_is_refused(
    publish: Publish, base: VerdictFile, head: VerdictFile, update: dict[str, Any], why: str
) -> None:
    check = publish(_nothing(base, head, **update))
    _refused(check, "claims NOTHING_TO_PROVE although")
    assert why in check["output"]["summary"].replace("\\", "")


@pytest.mark.parametrize("changed", [WORKFLOW_PATH, ".github/x.yml", "action.yml"])
def test_verified_from_a_pr_that_edits_the_workflow_is_not_trusted(
    publish: Publish, changed: str
) -> None:
    check = publish(compare_artifact(), pr_files=("src/x.py", changed))
    _untrusted(check)
    assert "Claimed verdict: VERIFIED" in check["output"]["summary"]


def test_protected_paths_apply_to_compare(publish: Publish) -> None:
    check = publish(
        compare_artifact(), pr_files=("src/x.py",), extra_env={"INPUT_PROTECTED-PATHS": "src/*"}
    )
    _untrusted(check)


def test_embedded_run_differs_from_the_side_file(publish: Publish) -> None:
    """VERIFIED, but the comparison embeds a head run that is not head-verdict.json."""
    result = compare_result()
    other_head = verdict_file(Verdict.FAIL, (case(TestStatus.FAILED),))
    files = compare_files(result)
    files["head-verdict.json"] = other_head.model_dump_json().encode()
    files["head-result.json"] = other_head.sandbox.model_dump_json().encode()
    _refused(publish(zip_files(files)), "embeds another head run")


def test_side_verdict_and_result_must_describe_one_run(publish: Publish) -> None:
    result = compare_result()
    files = compare_files(result)
    files["base-result.json"] = (
        result.before.sandbox.model_copy(update={"exit_code": 9}).model_dump_json().encode()
    )
    _refused(publish(zip_files(files)), "base-verdict.json and base-result.json differ")


def test_verified_with_transitions_the_runs_do_not_show(publish: Publish) -> None:
    """Both runs pass the same test, yet the comparison claims it flipped."""
    passing = verdict_file(Verdict.PASS, (case(TestStatus.PASSED),))
    honest = compare_result(base=passing, head=passing)
    forged = honest.model_copy(update={"transitions": compare_result().transitions})
    _refused(publish(compare_artifact(forged)), "transitions do not follow")


def test_verified_with_forged_counts(publish: Publish) -> None:
    result = compare_result()
    forged = result.model_copy(
        update={"counts": result.counts.model_copy(update={"pass_to_pass": 5})}
    )
    _refused(publish(compare_artifact(forged)), "counts do not match")


def test_verified_without_a_fix_is_refused(publish: Publish) -> None:
    """A consistent comparison in which nothing flipped cannot claim VERIFIED."""
    passing = verdict_file(Verdict.PASS, (case(TestStatus.PASSED),))
    _refused(
        publish(compare_artifact(compare_result(base=passing, head=passing))),
        "claims VERIFIED although no test fails on base and passes on head",
    )


def test_verified_with_a_run_that_did_not_complete_is_refused(publish: Publish) -> None:
    head = verdict_file(Verdict.PASS, (case(TestStatus.PASSED),))
    head = head.model_copy(
        update={"sandbox": head.sandbox.model_copy(update={"status": RunStatus.TIMEOUT})}
    )
    _refused(publish(compare_artifact(compare_result(head=head))), "claims VERIFIED although a run")


def test_comparison_of_another_head_commit_is_refused(publish: Publish) -> None:
    _refused(
        publish(compare_artifact(compare_result(head_sha="1" * 40))),
        "head commit is not the verify run's head commit",
    )


def test_extra_model_fields_are_refused(publish: Publish) -> None:
    files = compare_files()
    doc = json.loads(files[COMPARE_RESULT_FILE])
    doc["trusted"] = True
    files[COMPARE_RESULT_FILE] = json.dumps(doc).encode()
    _refused(publish(zip_files(files)), "does not match its model")


def _with_directory_member() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in compare_files().items():
            archive.writestr(name, data)
        archive.writestr(zipfile.ZipInfo("base/"), b"")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("data", "why"),
    [
        pytest.param(compare_artifact(**{"evil.sh": b"x"}), "unexpected member", id="unknown"),
        pytest.param(
            zip_files({f"base/{k.removeprefix('base-')}": v for k, v in compare_files().items()}),
            "unexpected member",
            id="nested-names",
        ),
        pytest.param(_with_directory_member(), "directory member", id="directory"),
        pytest.param(
            compare_artifact(**{"verdict.json": verdict_file().model_dump_json().encode()}),
            "compare artifact holds run files",
            id="mixed-with-run-files",
        ),
        pytest.param(
            zip_files({k: v for k, v in compare_files().items() if k != "head-verdict.json"}),
            "missing head-verdict.json",
            id="missing-side",
        ),
        pytest.param(
            artifact(**{"head-output.txt": b"x"}),
            "run artifact holds compare files",
            id="run-with-compare-files",
        ),
    ],
)
def test_wrong_names_and_extra_files_are_refused(publish: Publish, data: bytes, why: str) -> None:
    _refused(publish(data), why)


def test_annotations_for_heads_failing_tests_in_the_head_tree_only(
    publish: Publish, github_fake: FakeGitHub
) -> None:
    base = verdict_file(
        Verdict.FAIL,
        (case(TestStatus.FAILED), case(TestStatus.PASSED, "test_b", "gone.py")),
    )
    head = verdict_file(
        Verdict.FAIL,
        (case(TestStatus.PASSED), case(TestStatus.FAILED, "test_b", "gone.py")),
    )
    cases = (*head.testcases, case(TestStatus.FAILED, "x"))
    head = head.model_copy(update={"testcases": cases, "totals": Totals.count(cases)})
    result = compare_result(base, head, CompareVerdict.NOT_PROVEN, ("a regression",))
    check = publish(compare_artifact(result))
    assert check["conclusion"] == "neutral"
    (run_id,) = github_fake.check_runs
    notes = github_fake.annotations[run_id]
    assert [n["path"] for n in notes] == ["tests/test_x.py"]
    assert "PASS_TO_FAIL (1)" in check["output"]["summary"]
    assert "Failing tests on head" in check["output"]["text"]


def test_hostile_test_ids_are_escaped(publish: Publish) -> None:
    base = verdict_file(Verdict.FAIL, (case(TestStatus.FAILED, HOSTILE_NAME),))
    head = verdict_file(Verdict.PASS, (case(TestStatus.PASSED, HOSTILE_NAME),))
    check = publish(compare_artifact(compare_result(base, head)))
    assert check["conclusion"] == "success"
    summary = check["output"]["summary"]
    assert "@octocat" not in summary and "(https://evil" not in summary
    assert "\\<img" in summary and " <img" not in summary
