"""The attack twins of the history pairs whose fix renames or re-parametrizes a test
(tests/corpus/manifest.json: pathspec-1.1.1, sqlparse-0.4.2, both VERIFIED there): the same
real release pair, its head changed into a PR that breaks a test that passes on base and
deletes it, or renames it with the broken value as its new expectation. The release's own fix
and its proof stay; only the removed test, run by id from base's file over the PR's code,
stands against it: NOT PROVEN, where the honest release is VERIFIED."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit
from tests.integration.helpers import MANIFEST, compare
from tests.integration.history_helpers import releases, two_commits
from verify_pr.models.removed import RemovedStanding

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PYTHON_IMAGE = "verify-pr-python:local"


def _cut(text: str, start: str, end: str) -> str:
    """``text`` without the part from ``start`` up to (not including) ``end``, each found once."""
    assert text.count(start) == 1 and text.count(end) == 1, (start, end)
    return text[: text.index(start)] + text[text.index(end) :]


def _swap(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# pathspec 1.1.1: += drops the added spec's patterns (test_03_iadd of 1.1.0 fails on it)
_PATHSPEC_CODE = "pathspec/pathspec.py"
_PATHSPEC_TESTS = "tests/test_05_pathspec.py"
_IADD = "\tdef test_03_iadd_1_simple(self):"
_IADD_MIXED = "\tdef test_03_iadd_2_mixed(self):"
_LEN = "\tdef test_04_len(self):"
_ALL_FOUR = "self.assertEqual(includes, {\n\t\t\t'test.html',\n\t\t\t'test.jpg',"


def _pathspec(head: Path, variant: str) -> dict[str, str | bytes | None]:
    code = _swap(
        (head / _PATHSPEC_CODE).read_text(),
        "self.patterns = [*self.patterns, *other.patterns]",
        "self.patterns = [*self.patterns]",
    )
    tests = (head / _PATHSPEC_TESTS).read_text()
    if variant == "delete":  # both tests of += gone
        tests = _cut(tests, _IADD, _LEN)
    else:  # test_03_iadd_1_simple (1.1.1's name of test_03_iadd) expects png and txt only
        tests = _cut(tests, _IADD_MIXED, _LEN)
        head_part, simple = tests.split(_IADD)
        tests = head_part + _IADD + _swap(simple, _ALL_FOUR, "self.assertEqual(includes, {")
    return {_PATHSPEC_CODE: code, _PATHSPEC_TESTS: tests}


# sqlparse 0.4.2: the CLI's error for invalid options reworded (test_invalid_args of 0.4.1
# fails on it)
_SQLPARSE_CODE = "sqlparse/cli.py"
_SQLPARSE_TESTS = "tests/test_cli.py"


def _sqlparse(head: Path, variant: str) -> dict[str, str | bytes | None]:
    code = _swap((head / _SQLPARSE_CODE).read_text(), "'Invalid options: {}'", "'Bad options: {}'")
    tests = (head / _SQLPARSE_TESTS).read_text()
    if variant == "delete":
        tests = _cut(tests, "def test_invalid_args(", "def test_invalid_infile(")
    else:
        tests = _swap(tests, "def test_invalid_args(", "def test_invalid_args_message(")
        tests = _swap(tests, '"[ERROR] Invalid options: ', '"[ERROR] Bad options: ')
    return {_SQLPARSE_CODE: code, _SQLPARSE_TESTS: tests}


PAIRS = {
    "pathspec-1.1.1": (_pathspec, "tests/test_05_pathspec.py::PathSpecTest::test_03_iadd"),
    "sqlparse-0.4.2": (_sqlparse, "tests/test_cli.py::test_invalid_args"),
}


@pytest.mark.parametrize("variant", ["delete", "rename_broken"])
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_a_real_pr_that_breaks_a_test_and_removes_it_is_not_proven(
    tmp_path: Path, pair: str, variant: str
) -> None:
    require_docker(PYTHON_IMAGE)
    (entry,) = [e for e in MANIFEST["history"] if e["id"] == pair]
    assert entry["verdict"] == "VERIFIED"  # the honest release, in the history tier
    make, broken = PAIRS[pair]
    base, head = releases(entry, tmp_path)
    repo, base_sha, release = two_commits(tmp_path, base, head)
    checkout(repo, release)
    attack = commit(repo, make(head, variant), f"{variant}: break {broken}")
    # compared as the release is in the history tier: only the attack differs
    extra = ["--runner", "pytest", "--flake-runs", "1", "--timeout", "300"]
    if entry["strict_harness"]:
        extra.append("--strict-harness")
    _code, result, summary = compare(tmp_path / "cmp", repo, base_sha, attack, PYTHON_IMAGE, *extra)
    assert result.verdict == "NOT_PROVEN", result.reasons
    standings = {t.id: t.standing for t in result.removed_tests}
    gone = {i.split("::")[-1] for i in entry["removed"]}
    assert {i.split("::")[-1]: s for i, s in standings.items()} == {
        **dict.fromkeys(gone, RemovedStanding.PASSED),  # the release's own renames
        broken.split("::")[-1]: RemovedStanding.FAILED,
    }
    # the removed test is the one reason: no other rule fired
    assert len(result.reasons) == 1, result.reasons
    assert "removes or renames fail on its code" in result.reasons[0]
    assert "the PR removes a test its code breaks" in summary
    assert result.proofs  # the release's fix is there: only the removed test stands against it
