"""The publish job's intake of a comparison wider than its verdict files (issue 36): each run's
compact listing (``models.listing``) is read first, under its bounds, held against the run's
testcases, and the transitions are re-derived from it. The artifact is the attacker's: a
listing that hides a failure, adds one, or is missing is refused; the honest artifact of the
same comparison (the positive control of each) is accepted.

The verdict file's cap is lowered to ``CAP`` for the intake here (the same rules, over 60
results rather than 12,000: seconds of pydantic per artifact otherwise); the real cap is
exercised in real containers by tests/integration/test_compare_scale.py."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass

import pytest

from tests.action.compare_builders import BASE_SHA, PROOF
from tests.action.helpers import HEAD_SHA, verdict_file
from verify_pr.contract import COMPARE_RESULT_FILE
from verify_pr.models.compare import CompareResult, CompareVerdict, side_file
from verify_pr.models.listing import HEADER, LISTING_FILES, encode
from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.transitions import classify_plain, models, tally
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.policy import whole
from verify_pr.policy.whole import DROPPED
from verify_pr.publish.intake import CompareArtifact, Refused, validate_artifact

P, F, S, N_R = TestStatus.PASSED, TestStatus.FAILED, TestStatus.SKIPPED, TestStatus.NOT_RUN
CAP = 40
N = CAP + 20  # each run has more results than its verdict file lists
FIX = "tests/test_big.py::tests.test_big::test_fix"


def _id(i: int) -> str:
    return f"tests/test_big.py::tests.test_big::test_{i:05d}"


def _case(test_id: str, status: TestStatus) -> TestCase:
    name = test_id.rpartition("::")[2]
    return TestCase.build(
        name=name, classname="tests.test_big", file="tests/test_big.py", line=1, status=status
    )


def _run(statuses: Mapping[str, TestStatus]) -> VerdictFile:
    """The verdict file the verifier writes: failures first, then the rest, up to the cap."""
    bad = [i for i, s in statuses.items() if s is F]
    rest = [i for i, s in statuses.items() if s is not F]
    listed = (bad + rest)[:CAP]
    cases = tuple(_case(i, statuses[i]) for i in listed)
    run = verdict_file(Verdict.FAIL if bad else Verdict.PASS, cases)
    # its totals count the whole report, as the verifier's do
    every = Totals.count(_case(i, s) for i, s in statuses.items())
    return run.model_copy(update={"totals": every})


BEFORE = {FIX: F, **{_id(i): P for i in range(N)}}
HEAD = {FIX: P, **{_id(i): P for i in range(N)}}


@pytest.fixture(autouse=True)
def _cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(whole, "VERDICT_MAX_TESTCASES", CAP)


@pytest.fixture(scope="module")
def runs() -> tuple[VerdictFile, VerdictFile]:
    return _run(BEFORE), _run(HEAD)


def _files(
    before: VerdictFile,
    head: VerdictFile,
    listings: Mapping[str, Mapping[str, TestStatus] | None],
    verdict: CompareVerdict = CompareVerdict.VERIFIED,
    base_own: VerdictFile | None = None,
    edited: tuple[str, ...] = (),
) -> dict[str, bytes]:
    """A compare artifact whose result is re-derived from ``listings`` (as an attacker who
    forges consistently would write it)."""
    rows = classify_plain(listings["base"] or {}, listings["head"] or {})
    result = CompareResult(
        verdict=verdict,
        reasons=("r",),
        base_sha=BASE_SHA,
        head_sha=HEAD_SHA,
        strict_harness=False,
        harness_files_changed=(),
        counts=tally(rows),
        transitions=tuple(models(rows, DROPPED)),
        base=before,
        head=head,
        code_paths=("x.py",),
        proofs=(PROOF.model_copy(update={"id": FIX}),),
        base_own=base_own,
        edited_test_paths=edited,
        test_paths=edited,
    )
    files = {COMPARE_RESULT_FILE: result.model_dump_json().encode()}
    for side, v in (("base", before), ("head", head)):
        files[side_file(side, "result.json")] = v.sandbox.model_dump_json().encode()
        files[side_file(side, "verdict.json")] = v.model_dump_json().encode()
    for key, statuses in listings.items():
        if statuses is not None:
            files[LISTING_FILES[key]] = encode(statuses)
    return files


@dataclass(frozen=True)
class _Read:
    """The intake's answer: why it refused (empty: accepted), and the accepted comparison."""

    refused: str
    compare: CompareResult | None


def _intake(files: dict[str, bytes]) -> _Read:
    got = validate_artifact(files, HEAD_SHA)
    if isinstance(got, Refused):
        return _Read(got.reason, None)
    assert isinstance(got.artifact, CompareArtifact)
    return _Read("", got.artifact.compare)


def test_the_honest_wide_comparison_is_read_whole(runs: tuple[VerdictFile, VerdictFile]) -> None:
    intake = _intake(_files(*runs, {"base": BEFORE, "head": HEAD}))
    assert intake.refused == "", intake.refused
    assert intake.compare is not None and intake.compare.verdict is CompareVerdict.VERIFIED
    assert intake.compare.counts.pass_to_pass == N  # every result, not the 10,000 listed
    assert [t.id for t in intake.compare.transitions] == [FIX]


def test_a_missing_listing_is_refused(runs: tuple[VerdictFile, VerdictFile]) -> None:
    intake = _intake(_files(*runs, {"base": BEFORE, "head": None}))
    assert "not head-listing.bin" in intake.refused
    # and without any listing, a run at its file's cap may hold more: refused too
    files = _files(*runs, {"base": BEFORE, "head": HEAD})
    del files[LISTING_FILES["base"]], files[LISTING_FILES["head"]]
    assert "no listing of its every result" in _intake(files).refused


def test_a_listing_for_a_run_the_comparison_lacks_is_refused(
    runs: tuple[VerdictFile, VerdictFile],
) -> None:
    intake = _intake(_files(*runs, {"base": BEFORE, "head": HEAD, "base_own": HEAD}))
    assert "lists a run the comparison does not have" in intake.refused


def test_a_listing_that_hides_a_failing_test_is_refused() -> None:
    """Head really fails test 7 (its verdict file lists it, failures first); the forged
    listing drops it, or calls it passed, to hide the regression."""
    head = {**HEAD, _id(7): F}
    before_run, head_run = _run(BEFORE), _run(head)
    hidden = {i: s for i, s in head.items() if i != _id(7)}
    intake = _intake(_files(before_run, head_run, {"base": BEFORE, "head": hidden}))
    assert "disagree on 1 test(s)" in intake.refused and _id(7) in intake.refused
    passed = {**head, _id(7): P}
    intake = _intake(_files(before_run, head_run, {"base": BEFORE, "head": passed}))
    assert "disagree on 1 test(s)" in intake.refused
    # control: the honest listing is read, and its regression stands against VERIFIED
    honest = _intake(_files(before_run, head_run, {"base": BEFORE, "head": head}))
    assert "claims VERIFIED although a test regressed" in honest.refused


def test_a_listing_that_adds_a_failure_on_base_is_refused(
    runs: tuple[VerdictFile, VerdictFile],
) -> None:
    """A fabricated FAIL_TO_PASS: a failure on base beyond the listed testcases, which list
    failures first and a pass, so could not have left it out."""
    forged = {**BEFORE, _id(N + 5): F}
    head = {**HEAD, _id(N + 5): P}
    intake = _intake(_files(*runs, {"base": forged, "head": head}))
    assert "a failure the testcases leave out" in intake.refused


def test_a_listing_that_adds_a_passing_test_changes_nothing_or_is_refused(
    runs: tuple[VerdictFile, VerdictFile],
) -> None:
    added = {**HEAD, _id(N + 1): P}
    # the result not re-derived from it: its transitions do not follow
    files = _files(*runs, {"base": BEFORE, "head": HEAD})
    files[LISTING_FILES["head"]] = encode(added)
    assert "transitions do not follow from the listings" in _intake(files).refused
    # re-derived, but the run's totals do not count it
    intake = _intake(_files(*runs, {"base": BEFORE, "head": added}))
    assert "totals count fewer tests than its listing" in intake.refused
    # forged throughout: one more ADDED pass, the same verdict
    intake = _intake(_files(runs[0], _run(added), {"base": BEFORE, "head": added}))
    assert intake.refused == "" and intake.compare is not None
    assert intake.compare.verdict is CompareVerdict.VERIFIED
    # a run that lists all its testcases (under the cap) takes no id its testcases lack
    small = verdict_file(Verdict.PASS, (_case(FIX, P),))
    files = _files(runs[0], small, {"base": BEFORE, "head": {FIX: P, _id(1): P}})
    assert "lists all its 1 testcases" in _intake(files).refused


def test_a_skip_beyond_the_listed_testcases_stands_against_verified(
    runs: tuple[VerdictFile, VerdictFile],
) -> None:
    """The listing is what the re-derivation reads: a test of base skipped on head that the
    head verdict file does not list (skips are not listed first) still counts."""
    skipped = {**HEAD, _id(N - 1): S}
    intake = _intake(_files(*runs, {"base": BEFORE, "head": skipped}))
    assert "1 test(s) of base are skipped on head" in intake.refused
    # the same transitions claimed without the skip: they do not follow from the listing
    files = _files(*runs, {"base": BEFORE, "head": HEAD})
    files[LISTING_FILES["head"]] = encode(skipped)
    assert "transitions do not follow from the listings" in _intake(files).refused


def test_a_wide_run_s_totals_count_at_least_its_listing(
    runs: tuple[VerdictFile, VerdictFile],
) -> None:
    before, head = runs
    assert head.totals is not None
    files = _files(before, head, {"base": BEFORE, "head": HEAD})
    assert _intake(files).refused == ""  # control
    short = head.model_copy(update={"totals": Totals.count(head.testcases)})
    files = _files(before, short, {"base": BEFORE, "head": HEAD})
    assert "the head run's totals count fewer tests than its listing" in _intake(files).refused


def test_a_listing_is_read_first_under_its_bounds(runs: tuple[VerdictFile, VerdictFile]) -> None:
    files = _files(*runs, {"base": BEFORE, "head": HEAD})
    deflate = zlib.compressobj(9)
    chunk = b"\0" * (1 << 20)  # 100 MiB of zeros out of about 100 KiB in
    bomb = deflate.compress(HEADER) + b"".join(deflate.compress(chunk) for _ in range(100))
    files[LISTING_FILES["head"]] = bomb + deflate.flush()
    files[COMPARE_RESULT_FILE] = b"{not json"  # never reached
    assert "head-listing.bin is refused" in _intake(files).refused
    assert "decompressed" in _intake(files).refused


def test_a_test_base_s_own_run_left_unrun_beyond_its_testcases_is_found(
    runs: tuple[VerdictFile, VerdictFile],
) -> None:
    """Base's own run by id lists most of base as collected, not run; the rule runs every
    test of a file the PR edits. One such test that only the listing shows as not run is
    found by the file its id names."""
    own = {FIX: P, **{_id(i): P for i in range(CAP)}, **{_id(i): N_R for i in range(CAP, N)}}
    listings = {"base": BEFORE, "head": HEAD, "base_own": own}
    files = _files(*runs, listings, base_own=_run(own), edited=("tests/test_big.py",))
    assert f"base's own run did not run {N - CAP} test(s)" in _intake(files).refused
    # control: the PR edits another file, whose tests all ran
    files = _files(*runs, listings, base_own=_run(own), edited=("tests/test_other.py",))
    assert _intake(files).refused == ""
