"""Re-runs that claim more than they did (issue 33, class 6), end to end on real containers.

A sibling test module, sorted first, patches ``add`` at import when the code says version 2;
its own test (the version is 2) is a real FAIL_TO_PASS. The PR bumps the version and fixes
nothing: in the whole runs, and in a re-run that imports the sibling too, ``test_add`` passes
on head through the sibling's patch. Two ways it was VERIFIED: the proofs re-run together in one
process (the sibling's patch stood under ``test_add``), and an id the selector refused (a
non-ASCII parameter id, which pytest writes escaped) re-run with the whole suite while the
reason said "confirmed by id without the rest of the suite". Each proof's file now re-runs in
a process of its own, pytest's escaped ids are selected as pytest writes them, and a proof
re-run whole says so. The honest twin (the version bump with the real fix) stays VERIFIED,
each proof confirmed by id."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.compare_helpers import IMAGE
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareVerdict

pytestmark = [pytest.mark.docker, pytest.mark.slow]

CALC = "VERSION = {version}\n\n\ndef add(a, b):\n    return a {op} b\n"
SIBLING = (
    "import calc\n\nif calc.VERSION == 2:\n    calc.add = lambda a, b: a + b\n\n\n"
    "def test_version():\n    assert calc.VERSION == 2\n"
)
PROOF = (
    "import pytest\n\nfrom calc import add\n\n\n"
    '@pytest.mark.parametrize("a", [2], ids=["{id}"])\n'
    "def test_add(a):\n    assert add(a, 3) == 5\n"
)


@pytest.mark.parametrize("param_id", ["two", "\u00e9"], ids=["ascii-id", "escaped-id"])
@pytest.mark.parametrize("head", ["fix", "trick"])
def test_a_sibling_patch_is_absent_from_the_proofs_rerun(
    tmp_path: Path, head: str, param_id: str
) -> None:
    require_docker(IMAGE)
    repo = init_repo(tmp_path / "repo")
    base = commit(
        repo,
        {
            "pytest.ini": "[pytest]\n",
            "calc.py": CALC.format(version=1, op="-"),
            "test_a_sibling.py": SIBLING,
            "test_calc.py": PROOF.replace("{id}", param_id),
        },
        "base",
    )
    op = "+" if head == "fix" else "-"
    checkout(repo, base)
    sha = commit(repo, {"calc.py": CALC.format(version=2, op=op)}, head)
    code, result, _ = compare(tmp_path, repo, base, sha, IMAGE, "--flake-runs", "1")
    assert result.counts.fail_to_pass == 2  # the whole runs: the sibling's patch worked
    if head == "fix":
        assert (code, result.verdict) == (0, CompareVerdict.VERIFIED), result.reasons
        assert "each confirmed by id without the rest of the suite" in result.reasons[0]
        assert [p.reruns for p in result.proofs] == [1, 1]
        return
    assert (code, result.verdict) == (4, CompareVerdict.NOT_PROVEN), result.reasons
    flaky = [r for r in result.reasons if "flaky" in r]
    assert flaky and "test_add" in flaky[0] and "test_version" not in flaky[0], result.reasons
