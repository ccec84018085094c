"""verify-pr-result.json: what ``verify-pr compare`` concludes from a base run and a head run."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from pydantic import Field

from verify_pr.contract import (
    COMPARE_RESULT_FILE,
    COMPARE_SUMMARY_FILE,
    OUTPUT_FILE,
    REPORT_FILE,
    RESULT_FILE,
    VERDICT_FILE,
)
from verify_pr.models.base import BoundaryModel, WireNamedModel
from verify_pr.models.coverage import PatchCoverage
from verify_pr.models.listing import LISTING_FILES
from verify_pr.models.removed import RemovedTest
from verify_pr.models.report import IdText, MessageText, PathText, TestStatus
from verify_pr.models.verdict import REASON_MAX_CHARS, VerdictFile

MAX_TRANSITIONS = 20_000
MAX_HARNESS_FILES = 1_000
MAX_COMPARE_REASONS = 30
MAX_LISTED_PATHS = 1_000
MAX_PROOFS = 100
RULE_MAX_CHARS = 1_000


class Transition(StrEnum):
    """What the PR did to one test (paired by TestCase.id, worst status per id)."""

    FAIL_TO_PASS = "FAIL_TO_PASS"  # noqa: S105 (a transition, not a password)
    PASS_TO_PASS = "PASS_TO_PASS"  # noqa: S105
    PASS_TO_FAIL = "PASS_TO_FAIL"  # noqa: S105
    FAIL_TO_FAIL = "FAIL_TO_FAIL"
    ADDED = "ADDED"  # head only
    REMOVED = "REMOVED"  # before only (base's code with the PR's tests)
    SKIPPED = "SKIPPED"  # skipped on either side
    EXPECTED_FAILURE = "EXPECTED_FAILURE"  # marked to fail on either side (never a pass)


class CompareVerdict(StrEnum):
    """VERIFIED needs every piece of evidence; NOTHING_TO_PROVE is a clean comparison of a PR
    that fixes nothing (no test turns green, nothing that passed broke, no test or harness of
    base changed), never a proof; BLOCKED is not a verdict on the PR."""

    VERIFIED = "VERIFIED"
    NOTHING_TO_PROVE = "NOTHING_TO_PROVE"
    NOT_PROVEN = "NOT_PROVEN"
    BLOCKED = "BLOCKED"


class CompareMethod(StrEnum):
    """How the code after the PR was computed (what GitHub tests as refs/pull/N/merge)."""

    MERGE = "merge-tree"  # head merged into the base tip with git merge-tree --write-tree
    HEAD = "head"  # the base tip is an ancestor of head: head's tree is the merge
    NONE = "none"  # nothing to merge: conflicts, already merged, or unrelated histories


class ChangedCode(StrEnum):
    """Whether a proof ran a line the PR changed in a code file, in its re-runs by id (the
    same tracer on both sides; docs/coverage.md, "A proof must run changed code")."""

    RAN = "ran"  # on head an added or changed line, or on before a line the PR removes
    NOT_RUN = "not_run"  # measured on both sides: none of the changed lines ran
    NO_CODE = "no_code"  # the PR changes no code file: nothing a test could run
    NO_DATA = "no_data"  # a traced re-run returned no data (vitest aside), or not the tracer's
    NOT_RERUN = "not_rerun"  # beyond the first re-run ids: not re-run, so not measured
    # no tracer (bun, an own command, no measurable file), no re-runs, a whole-suite re-run,
    # or no data back from vitest (a config that cannot load our provider)
    NOT_MEASURED = "not_measured"


# the states in which a proof counts: RAN, and NOT_MEASURED (said in the verdict's reason)
COUNTING_CHANGED_CODE = frozenset({ChangedCode.RAN, ChangedCode.NOT_MEASURED})
MAX_PROOF_LINES = 10
ProofLine = Annotated[str, Field(max_length=300)]


class Proof(BoundaryModel):
    """One FAIL_TO_PASS test and how it failed on base's code (the PR's text: shown escaped)."""

    id: IdText
    file: PathText | None
    line: Annotated[int, Field(ge=1)] | None
    message: MessageText | None
    reruns: Annotated[int, Field(ge=0)] = 0  # times it was re-run by id on each side
    # whether its re-runs ran changed code, and the first changed lines they ran
    # ("head path:line" or "before path:line"); None in files older than the rule
    changed_code: ChangedCode | None = None
    changed_code_lines: Annotated[tuple[ProofLine, ...], Field(max_length=MAX_PROOF_LINES)] = ()


class TestTransition(WireNamedModel):
    __test__ = False

    id: IdText
    # on base's code with the PR's tests; "base" in the file
    before: TestStatus | None = Field(alias="base")
    head: TestStatus | None
    transition: Transition


class TransitionCounts(BoundaryModel):
    fail_to_pass: Annotated[int, Field(ge=0)]
    pass_to_pass: Annotated[int, Field(ge=0)]
    pass_to_fail: Annotated[int, Field(ge=0)]
    fail_to_fail: Annotated[int, Field(ge=0)]
    added: Annotated[int, Field(ge=0)]
    removed: Annotated[int, Field(ge=0)]
    skipped: Annotated[int, Field(ge=0)]
    expected_failure: Annotated[int, Field(ge=0)] = 0  # absent from files before it existed


CompareReason = Annotated[str, Field(max_length=REASON_MAX_CHARS)]
CommitId = Annotated[str, Field(pattern=r"^([0-9a-f]{40}|[0-9a-f]{64})$")]
ListedPaths = Annotated[tuple[PathText, ...], Field(max_length=MAX_LISTED_PATHS)]
ListedIds = Annotated[tuple[IdText, ...], Field(max_length=MAX_PROOFS)]


class CompareResult(WireNamedModel):
    """The comparison file (schema: schema/verify-pr-result.schema.json)."""

    verdict: CompareVerdict
    reasons: Annotated[tuple[CompareReason, ...], Field(max_length=MAX_COMPARE_REASONS)]
    base_sha: CommitId
    head_sha: CommitId
    strict_harness: bool
    harness_files_changed: Annotated[tuple[PathText, ...], Field(max_length=MAX_HARNESS_FILES)]
    counts: TransitionCounts
    transitions: Annotated[tuple[TestTransition, ...], Field(max_length=MAX_TRANSITIONS)]
    # base's code running the PR's tests ("tests over base"); "base" in the file
    before: VerdictFile = Field(alias="base")
    head: VerdictFile  # the PR's code: head merged into base
    # Added with the three-run comparison; defaults keep older files readable.
    method: CompareMethod | None = None
    merge_base: CommitId | None = None
    merge_tree: CommitId | None = None  # the tree that ran as head
    conflicts: ListedPaths = ()
    test_rule: Annotated[str, Field(max_length=RULE_MAX_CHARS)] | None = None
    # the PR's changed paths that run in its version on both sides (tests by base's rule,
    # and whatever is not known to be code); code_paths: the rest
    test_paths: ListedPaths = ()
    code_paths: ListedPaths = ()
    base_own: VerdictFile | None = None  # base's code with base's own tests, when needed
    # of test_paths: the test paths of base the PR edits or deletes (and conftest or data
    # files beside tests), and the paths that are neither test nor code; either one makes
    # base's own run needed (a test they break fails on both sides)
    edited_test_paths: ListedPaths = ()
    other_paths: ListedPaths = ()
    proofs: Annotated[tuple[Proof, ...], Field(max_length=MAX_PROOFS)] = ()
    test_changed: ListedIds = ()  # failed on base, pass on base's code with the PR's test
    flaky: ListedIds = ()
    expected_failure_markers: ListedPaths = ()  # test files where the PR adds xfail/failing
    # which changed lines ran (docs/coverage.md): information, never part of the verdict
    patch_coverage: PatchCoverage | None = None
    # the tests of base gone on head, run by id from base's version of their file over head's
    # code (``models.removed``): that run, and each test's standing
    removed_run: VerdictFile | None = None
    removed_tests: Annotated[tuple[RemovedTest, ...], Field(max_length=MAX_LISTED_PATHS)] = ()


# The compare artifact: one flat folder the action uploads and the publish job validates
# strictly (no directories; only these exact names).
COMPARE_SIDES = ("base", "head")
SIDE_FILES = (RESULT_FILE, VERDICT_FILE, OUTPUT_FILE, REPORT_FILE)
"""What ``verify-pr compare`` writes in its ``base/`` and ``head/`` folders."""


def side_file(side: str, name: str) -> str:
    """The flat artifact name of ``<side>/<name>``: ``base/result.json`` -> ``base-result.json``."""
    if side not in COMPARE_SIDES or name not in SIDE_FILES:
        raise ValueError(f"not a compare side file: {side}/{name}")
    return f"{side}-{name}"


COMPARE_REQUIRED_FILES = frozenset(
    {COMPARE_RESULT_FILE}
    | {side_file(side, name) for side in COMPARE_SIDES for name in (RESULT_FILE, VERDICT_FILE)}
)
COMPARE_ARTIFACT_FILES = frozenset(
    {COMPARE_RESULT_FILE, COMPARE_SUMMARY_FILE, *LISTING_FILES.values()}
    | {side_file(side, name) for side in COMPARE_SIDES for name in SIDE_FILES}
)
