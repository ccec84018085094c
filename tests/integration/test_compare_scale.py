"""A compare of a suite larger than a verdict file lists (issue 36), in real containers on the
real daemon: 12,000 parametrized pytest cases, more than ``VERDICT_MAX_TESTCASES``.

Each run is paired whole from its report; the comparison carries each run's compact listing
and the publish job's intake (``validate_artifact`` over the artifact the action would
upload) re-derives the transitions from it. The fix is VERIFIED; its attack twins are not: a
PR that fixes one case and breaks another, and one that fixes a case and skips another (a
skip is no failure, so no verdict file lists it first: only the listing shows it).

A refactor that fixes nothing is NOTHING TO PROVE from every result, not from the verdict
files' 10,000 (its reason counts all 12,000); its twin, which makes a case skip past the cap
(a non-pass only the listing shows), is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr import action
from verify_pr.models.compare import Transition
from verify_pr.models.listing import LISTING_FILES, decode
from verify_pr.models.verdict import VERDICT_MAX_TESTCASES
from verify_pr.publish.intake import Refused, validate_artifact

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PYTHON_IMAGE = "verify-pr-python:local"
CASES = 12_000
assert CASES > VERDICT_MAX_TESTCASES

CODE = "def ok(i):\n    return {body}\n"
TEST = (
    "import pytest\n\nfrom grid import ok\n\n\n"
    f"@pytest.mark.parametrize('i', range({CASES}))\n"
    "def test_cell(i):\n{skip}    assert ok(i)\n"
)
# a loaded machine runs 12,000 cases in well over the helper's 60 s
FLAGS = ("--flake-runs", "1", "--timeout", "900")
SKIP = "    if i == 11998:\n        pytest.skip('not today')\n"
# a suite that passes whole on base: a case whose answer is None skips
QUIET_TEST = (
    "import pytest\n\nfrom grid import ok\n\n\n"
    f"@pytest.mark.parametrize('i', range({CASES}))\n"
    "def test_cell(i):\n    answer = ok(i)\n    if answer is None:\n"
    "        pytest.skip('no answer')\n    assert answer\n"
)


@pytest.fixture(scope="module")
def repo_heads(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, str]]:
    require_docker(PYTHON_IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("scale") / "repo")
    base = commit(
        repo,
        {
            "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = .\n",
            "grid.py": CODE.format(body="i != 5000"),  # the bug: one cell of the grid
            "tests/test_grid.py": TEST.format(skip=""),
        },
        "base: cell 5000 is wrong",
    )
    variants = {
        "fix": {"grid.py": CODE.format(body="True")},
        # fixes cell 5000 and breaks cell 11999
        "break": {"grid.py": CODE.format(body="i != 11999")},
        # fixes cell 5000 and skips cell 11998 (the PR's test file, its version on both sides)
        "skip": {"grid.py": CODE.format(body="True"), "tests/test_grid.py": TEST.format(skip=SKIP)},
    }
    heads = {}
    for name, files in variants.items():
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return repo, base, heads


@pytest.fixture(scope="module")
def quiet_heads(
    repo_heads: tuple[Path, str, dict[str, str]],
) -> tuple[Path, str, dict[str, str]]:
    """A base whose 12,000 cases all pass, and two refactors of its code that fix nothing."""
    repo, base, _ = repo_heads
    checkout(repo, base)
    quiet = commit(
        repo,
        {"grid.py": CODE.format(body="True"), "tests/test_grid.py": QUIET_TEST},
        "quiet base: every cell passes",
    )
    variants = {
        "refactor": CODE.format(body="i >= 0"),
        # cell 11999 skips on head: past the 10,000 testcases a verdict file lists
        "hidden": CODE.format(body="None if i == 11999 else True"),
    }
    heads = {}
    for name, code in variants.items():
        checkout(repo, quiet)
        heads[name] = commit(repo, {"grid.py": code}, name)
    return repo, quiet, heads


def _cell(i: int) -> str:
    return f"tests/test_grid.py::tests.test_grid::test_cell[{i}]"


def _published(tmp_path: Path, head_sha: str) -> tuple[str, str | None]:
    """The publish job's intake of the artifact the action would upload: (refusal, verdict)."""
    upload = tmp_path / "upload"
    action.flatten_compare(tmp_path / "out", upload)
    files = {p.name: p.read_bytes() for p in upload.iterdir()}
    intake = validate_artifact(files, head_sha)
    if isinstance(intake, Refused):
        return intake.reason, None
    return "", intake.artifact.claimed.value


def test_a_fix_in_a_suite_of_12000_tests_is_verified(
    repo_heads: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = repo_heads
    _code, result, _ = compare(tmp_path, repo, base, heads["fix"], PYTHON_IMAGE, *FLAGS)
    assert result.verdict == "VERIFIED", result.reasons
    assert [p.id for p in result.proofs] == [_cell(5000)]
    assert result.counts.pass_to_pass == CASES - 1  # every case paired, not the 10,000 listed
    assert [t.id for t in result.transitions] == [_cell(5000)]  # all but PASS_TO_PASS
    assert len(result.head.testcases) == VERDICT_MAX_TESTCASES
    head = decode((tmp_path / "out" / LISTING_FILES["head"]).read_bytes())
    assert len(head) == CASES
    assert _published(tmp_path, heads["fix"]) == ("", "VERIFIED")


@pytest.mark.parametrize(
    ("variant", "transition", "cell", "reason"),
    [
        ("break", Transition.PASS_TO_FAIL, 11999, "pass on base and fail on head"),
        ("skip", Transition.SKIPPED, 11998, "newly skipped"),
    ],
)
def test_a_fix_that_breaks_or_skips_another_of_the_12000_is_not_proven(
    repo_heads: tuple[Path, str, dict[str, str]],
    tmp_path: Path,
    variant: str,
    transition: Transition,
    cell: int,
    reason: str,
) -> None:
    repo, base, heads = repo_heads
    _code, result, _ = compare(tmp_path, repo, base, heads[variant], PYTHON_IMAGE, *FLAGS)
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert any(reason in r for r in result.reasons), result.reasons
    kinds = {t.id: t.transition for t in result.transitions}
    assert kinds[_cell(5000)] is Transition.FAIL_TO_PASS and kinds[_cell(cell)] is transition
    assert _published(tmp_path, heads[variant]) == ("", "NOT_PROVEN")


def test_a_refactor_of_12000_tests_has_nothing_to_prove_from_every_result(
    quiet_heads: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = quiet_heads
    _code, result, _ = compare(tmp_path, repo, base, heads["refactor"], PYTHON_IMAGE, *FLAGS)
    assert result.verdict == "NOTHING_TO_PROVE", result.reasons
    # every case counted, not the 10,000 each verdict file lists
    assert f"{CASES} test(s) pass on base's code and on head" in result.reasons[0]
    assert len(result.head.testcases) == VERDICT_MAX_TESTCASES
    assert _published(tmp_path, heads["refactor"]) == ("", "NOTHING_TO_PROVE")


def test_a_refactor_that_skips_a_case_past_the_cap_has_something_to_prove(
    quiet_heads: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = quiet_heads
    _code, result, _ = compare(tmp_path, repo, base, heads["hidden"], PYTHON_IMAGE, *FLAGS)
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert _cell(11999) not in {c.id for c in result.head.testcases}  # only the listing has it
    assert any("newly skipped" in r and _cell(11999) in r for r in result.reasons)
    kinds = {t.id: t.transition for t in result.transitions}
    assert kinds == {_cell(11999): Transition.SKIPPED}
    assert _published(tmp_path, heads["hidden"]) == ("", "NOT_PROVEN")
