"""Trust is re-derived, not read (issue 15, part 4), through the real publish entry point.

Each forged artifact below passes every strict model, and every file agrees with the others:
only recomputing what the artifact's own data implies catches it. Each is refused NOT TRUSTED
with the reason; the honest artifact next to it (the positive control) concludes as claimed.
The PR is resolved from GitHub's answer for the head sha in this repository: a PR the event
names but the API places elsewhere, closed, or on another head is never trusted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.action.compare_builders import case, compare_artifact, compare_result
from tests.action.helpers import (
    FORK_REPO_ID,
    HEAD_SHA,
    PR,
    _untrusted,
    artifact,
    verdict_file,
)
from tests.github_fake.server import FakeGitHub, Fault
from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus, RunStatus
from verify_pr.models.verdict import Verdict, VerdictFile

Publish = Callable[..., dict[str, Any]]
PASSED = case(TestStatus.PASSED)
FAILED = case(TestStatus.FAILED)
SKIPPED = case(TestStatus.SKIPPED, "test_other")
# pytest's stand-in for a test file that could not load (a collection error: no classname)
UNLOADED = TestCase.build(
    name="test_dep",
    classname=None,
    file="test_dep.py",
    line=None,
    status=TestStatus.ERROR,
    message="collection failure",
)


def forged(
    verdict: VerdictFile, *, cases: tuple[TestCase, ...] | None = None, **sandbox: Any
) -> VerdictFile:
    """``verdict`` with its testcases (totals recounted) and sandbox fields replaced."""
    update: dict[str, Any] = {"sandbox": verdict.sandbox.model_copy(update=sandbox)}
    if cases is not None:
        update |= {"testcases": cases, "totals": Totals.count(cases)}
    return verdict.model_copy(update=update)


def _contradiction(check: dict[str, Any], why: str, claim: str) -> None:
    _untrusted(check)
    summary = check["output"]["summary"].replace("\\", "")
    assert "the artifact contradicts itself" in summary, summary
    assert why in summary, summary
    assert f"The artifact claimed {claim}" in summary


RUN_FORGERIES = [
    pytest.param(
        forged(verdict_file(Verdict.PASS, (FAILED,)), exit_code=0),
        "claims PASS with 1 failed or errored test(s)",
        id="pass-with-a-failed-test",
    ),
    pytest.param(
        forged(verdict_file(Verdict.PASS, (PASSED,)), exit_code=1),
        "claims PASS but the runner exited 1",
        id="pass-with-exit-1",
    ),
    pytest.param(
        forged(verdict_file(Verdict.PASS, (PASSED,)), status=RunStatus.TIMEOUT, exit_code=None),
        "claims PASS but its sandbox status is TIMEOUT",
        id="pass-after-timeout",
    ),
    pytest.param(
        forged(verdict_file(Verdict.PASS), cases=()),
        "claims PASS but executed zero tests",
        id="pass-with-zero-tests",
    ),
    pytest.param(
        forged(verdict_file(Verdict.PASS), cases=(SKIPPED,)),
        "claims PASS but executed zero tests",
        id="pass-with-all-skipped",
    ),
    pytest.param(
        verdict_file(Verdict.PASS).model_copy(
            update={"totals": Totals(total=9, passed=9, failed=0, error=0, skipped=0)}
        ),
        "totals do not match its testcases",
        id="totals-that-disagree",
    ),
    pytest.param(
        forged(verdict_file(Verdict.PASS), report=ReportStatus.MISSING),
        "claims PASS without a report",
        id="pass-without-a-report",
    ),
    pytest.param(
        forged(verdict_file(Verdict.FAIL, (PASSED,)), exit_code=1),
        "claims FAIL without a failed or errored test",
        id="fail-without-failures",
    ),
    pytest.param(
        verdict_file(Verdict.NOT_PROVEN, (FAILED,)),
        "claims NOT_PROVEN although its report shows failing tests",
        id="not-proven-hiding-a-failure",
    ),
    pytest.param(
        verdict_file(Verdict.NOT_PROVEN, (UNLOADED, FAILED)),
        "claims NOT_PROVEN although its report shows failing tests",
        id="not-proven-hiding-a-failure-behind-a-missing-module",
    ),
    pytest.param(
        forged(verdict_file(Verdict.BLOCKED), status=RunStatus.COMPLETED, exit_code=0),
        "claims BLOCKED but its sandbox status is COMPLETED",
        id="blocked-that-ran",
    ),
]


@pytest.mark.parametrize(("verdict", "why"), RUN_FORGERIES)
def test_a_run_that_contradicts_its_own_data_is_not_trusted(
    publish: Publish, verdict: VerdictFile, why: str
) -> None:
    _contradiction(publish(artifact(verdict)), why, verdict.verdict.value.replace("_", " "))


@pytest.mark.parametrize(
    ("verdict", "conclusion"),
    [
        pytest.param(verdict_file(Verdict.PASS, (PASSED, SKIPPED)), "success", id="pass"),
        pytest.param(verdict_file(Verdict.FAIL, (FAILED,)), "failure", id="fail"),
        pytest.param(
            forged(verdict_file(Verdict.FAIL, (FAILED,)), exit_code=0),
            "failure",
            id="fail-despite-exit-0",
        ),
        pytest.param(
            forged(
                verdict_file(Verdict.NOT_PROVEN, (FAILED,)),
                status=RunStatus.TIMEOUT,
                exit_code=None,
            ),
            "neutral",
            id="timeout-with-failures",
        ),
        # a test file missing a dependency the image lacks: the verifier's NOT PROVEN
        pytest.param(
            verdict_file(Verdict.NOT_PROVEN, (UNLOADED, PASSED)), "neutral", id="missing-module"
        ),
        pytest.param(verdict_file(Verdict.BLOCKED), "action_required", id="blocked"),
    ],
)
def test_positive_control_consistent_runs_conclude_as_claimed(
    publish: Publish, verdict: VerdictFile, conclusion: str
) -> None:
    check = publish(artifact(verdict))
    assert check["conclusion"] == conclusion, check["output"]["summary"]
    assert "contradicts" not in check["output"]["summary"]


# -- compare -------------------------------------------------------------------------------


def _skipped_on_head() -> Any:
    other_passes = case(TestStatus.PASSED, "test_other")
    base = verdict_file(Verdict.FAIL, (FAILED, other_passes))
    head = verdict_file(Verdict.PASS, (PASSED, SKIPPED))
    return compare_result(base, head)


def _expected_to_fail_on_head() -> Any:
    other = case(TestStatus.PASSED, "test_other")
    base = verdict_file(Verdict.FAIL, (FAILED, other))
    head = verdict_file(Verdict.PASS, (PASSED, case(TestStatus.EXPECTED_FAILURE, "test_other")))
    return compare_result(base, head)


COMPARE_FORGERIES = [
    pytest.param(_skipped_on_head(), "1 test(s) of base are skipped on head", id="skipped-on-head"),
    pytest.param(
        _expected_to_fail_on_head(),
        "1 test(s) of base are expected to fail on head",
        id="expected-failure-on-head",
    ),
    pytest.param(
        compare_result(head=forged(verdict_file(Verdict.NOT_PROVEN, (PASSED,)))),
        "the head run was itself NOT_PROVEN",
        id="head-not-proven",
    ),
    pytest.param(
        compare_result(base=forged(verdict_file(Verdict.FAIL, (FAILED,)), exit_code=0)),
        "the base runner's exit code 0 disagrees with its report",
        id="base-exit-code",
    ),
    pytest.param(
        compare_result(head=forged(verdict_file(Verdict.PASS, (PASSED,)), exit_code=2)),
        "the head run claims PASS but the runner exited 2",
        id="head-inconsistent",
    ),
]


@pytest.mark.parametrize(("result", "why"), COMPARE_FORGERIES)
def test_a_comparison_that_contradicts_its_data_is_not_trusted(
    publish: Publish, result: Any, why: str
) -> None:
    _contradiction(publish(compare_artifact(result)), why, "VERIFIED")


def test_positive_control_an_honest_comparison_is_verified(publish: Publish) -> None:
    check = publish(compare_artifact(compare_result()))
    assert check["conclusion"] == "success", check["output"]["summary"]


# -- which PR ----------------------------------------------------------------------------

OTHER_REPO_ID = 1296269


def _hint(number: int = PR, sha: str = HEAD_SHA) -> dict[str, Any]:
    return {"pull_requests": [{"number": number, "head": {"sha": sha}, "base": {"sha": "0" * 40}}]}


def _no_commit_answer(github_fake: FakeGitHub) -> None:
    """GitHub's commit-to-PR index has not caught up: only the event's hint is left."""
    github_fake.fail_next(
        "repos/list-pull-requests-associated-with-commit", Fault(200, raw=b"[]"), times=5
    )


@pytest.mark.parametrize(
    "pulls",
    [
        pytest.param(
            [(PR, "octo-org:fix-bug", HEAD_SHA, FORK_REPO_ID, OTHER_REPO_ID)], id="base-elsewhere"
        ),
        pytest.param(
            [(PR, "octo-org:fix-bug", HEAD_SHA, FORK_REPO_ID, None, "closed")], id="closed"
        ),
        pytest.param([(PR, "octo-org:fix-bug", HEAD_SHA, 42)], id="other-head-repository"),
        pytest.param([(PR, "octo-org:fix-bug", "2" * 40, FORK_REPO_ID)], id="other-head-commit"),
    ],
)
def test_a_pr_the_api_does_not_place_here_is_never_trusted(
    publish: Publish, github_fake: FakeGitHub, pulls: list[tuple[Any, ...]]
) -> None:
    _no_commit_answer(github_fake)
    check = publish(artifact(), pulls=pulls, event_changes=_hint())
    _untrusted(check)
    assert "no open pull request of this repository" in check["output"]["summary"]


def test_positive_control_the_events_hint_checked_through_the_api(
    publish: Publish, github_fake: FakeGitHub
) -> None:
    _no_commit_answer(github_fake)
    check = publish(artifact(), event_changes=_hint())
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert github_fake.calls("pulls/get")


def test_the_pr_is_found_by_its_head_commit_without_any_hint(
    publish: Publish, github_fake: FakeGitHub
) -> None:
    check = publish(artifact(), event_changes={"head_branch": "renamed-since"})
    assert check["conclusion"] == "success", check["output"]["summary"]
    assert github_fake.calls("repos/list-pull-requests-associated-with-commit")


def test_every_matching_pr_is_checked_for_protected_files(
    publish: Publish, github_fake: FakeGitHub
) -> None:
    """Two open PRs share the head commit; the second changes the workflow."""
    pulls = [
        (PR, "octo-org:fix-bug", HEAD_SHA, FORK_REPO_ID),
        (PR + 1, "octo-org:fix-bug", HEAD_SHA, FORK_REPO_ID),
    ]
    github_fake.pull_files[PR + 1] = [".github/workflows/verify-pr.yml"]
    check = publish(artifact(), pulls=pulls)
    _untrusted(check)
    assert "changes files that decide how it is verified" in check["output"]["summary"]
