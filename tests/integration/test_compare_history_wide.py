"""Real history at real scale (issue 36): packaging's fix 55cbf1b9 ("stop unbounded bounds
sorting above each other"), in a suite of 64,207 tests, six times what a verdict file lists.

No release pair isolates the fix (26.3 predates it; 26.4 holds it among many changes), so the
pair is made the way SWE-bench makes one: head is the first release that holds the fix, the
PyPI sdist of packaging 26.4 (pinned by sha256 in tests/corpus/manifest.json,
"history_wide"), and base is head with the fix's code change reversed
(``tests/corpus/packaging-26.4-unfix-55cbf1b9.patch``: the change as 26.4's code reads it,
one line of ``_Bound.__init__``). The PR is the fix alone, its tests already in both trees.

The ground truth is the runner's own, in the same image and lockdown: pytest over base's code
(which holds head's tests) and over head; FAIL_TO_PASS is what fails on the one and passes on
the other. verify-pr's compare must pair every result (from each run's listing), be VERIFIED
with exactly that set, and the publish job's intake must accept the claim. The suite imports
hypothesis, pretend and tomli-w: its image is ``verify-pr-python-packaging`` (the python image
plus those wheels, ``tests/images/derived.py``). One compare, one pair of direct runs: slow.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml import ElementTree

from tests.conftest import require_docker
from tests.images import derived
from tests.integration.helpers import MANIFEST, ROOT, compare, fetch, locked_run, unpack
from tests.integration.history_helpers import two_commits
from verify_pr import action
from verify_pr.models.compare import Transition
from verify_pr.models.listing import LISTING_FILES, decode
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.verdict import VERDICT_MAX_TESTCASES
from verify_pr.publish.intake import Refused, validate_artifact
from verify_pr.verify.runs.select import pytest_node_id

pytestmark = [pytest.mark.docker, pytest.mark.slow]

(ENTRY,) = MANIFEST["history_wide"]
# the whole test took 5 min at load average ~7 on two cores; the compare alone took 15 min
# at ~28 (four other sessions sharing the cores): an hour per run is room, not a target
TIMEOUT_S = 3600


def unfixed(head: Path, dest: Path) -> Path:
    """Head's tree with the fix's code change reversed: base."""
    shutil.copytree(head, dest)
    # no repository above ``dest`` may take the patch's paths as its own
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(dest.parent)}
    patch = ROOT / "corpus" / ENTRY["base_patch"]
    subprocess.run(["git", "apply", "-p1", str(patch)], cwd=dest, env=env, check=True)
    return dest


def direct(tree: Path, image: str) -> dict[str, str]:
    """pytest itself, as after an editable install (src layout): node id -> PASSED, FAILED,
    ERROR or SKIPPED, from its own JUnit report (``-rA`` would not do at this size: its passes
    section looks each test's teardown up among all reports, quadratic, over 30 min here)."""
    script = (
        "PYTHONPATH=/work/src python3 -m pytest -p no:cacheprovider -q "
        "--junitxml=/tmp/direct.xml -o junit_family=xunit1 >/tmp/log 2>&1; "
        "cat /tmp/direct.xml || tail -n 40 /tmp/log >&2"
    )
    proc = locked_run(tree, image, script, timeout=TIMEOUT_S)
    found = {}
    for case in ElementTree.fromstring(proc.stdout).iter("testcase"):
        found[_junit_node(case)] = next(
            (word for tag, word in _OUTCOMES if case.find(tag) is not None), "PASSED"
        )
    assert found, proc.stderr[-2000:]
    return found


_OUTCOMES = (("failure", "FAILED"), ("error", "ERROR"), ("skipped", "SKIPPED"))


def _junit_node(case: Element) -> str:
    """pytest's node id of an xunit1 testcase: its file, then the classname's classes below
    the file's module, then its name."""
    file, classname = case.get("file", ""), case.get("classname", "")
    module = file.removesuffix(".py").replace("/", ".")
    classes = classname[len(module) + 1 :].split(".") if classname != module else []
    return "::".join([file, *classes, case.get("name", "")])


def node_id(test_id: str) -> str | None:
    """pytest's id of a result's id (``file::dotted classname::name``)."""
    file, classname, name = test_id.split("::", 2)
    case = TestCase.build(
        name=name, classname=classname, file=file, line=None, status=TestStatus.PASSED
    )
    return pytest_node_id(case)


def test_packaging_fix_in_a_suite_of_64000_tests_is_verified(tmp_path: Path) -> None:
    require_docker(derived.DERIVED[ENTRY["image"]].base)
    image = derived.ensure(ENTRY["image"])
    head = unpack(fetch(ENTRY["head"]), tmp_path / "head-src")
    base = unfixed(head, tmp_path / "base-src")
    repo, base_sha, head_sha = two_commits(tmp_path, base, head)
    flags = ("--runner", "pytest", "--flake-runs", "1", "--timeout", str(TIMEOUT_S))
    out = tmp_path / "cmp"
    # the two direct runs beside the compare (each side's facts gathered before any is
    # asserted: a run this long is made once)
    with ThreadPoolExecutor(1) as pool:
        truth = pool.submit(_truth, base, head, image)
        _code, result, _ = compare(out, repo, base_sha, head_sha, image, *flags)
        fixed, failing_on_head, ran = truth.result()
    assert fixed == ENTRY["fail_to_pass"]
    assert failing_on_head == []
    assert result.verdict == "VERIFIED", result.reasons
    proved = [t.id for t in result.transitions if t.transition is Transition.FAIL_TO_PASS]
    assert sorted(map(node_id, proved)) == ENTRY["fail_to_pass"]
    assert sorted(node_id(p.id) for p in result.proofs) == ENTRY["fail_to_pass"]
    # every result paired: the verdict files list 10,000, the listings every one
    head_listing = decode((out / "out" / LISTING_FILES["head"]).read_bytes())
    assert len(result.head.testcases) == VERDICT_MAX_TESTCASES < ran <= len(head_listing)
    passed = [i for i, s in head_listing.items() if s is TestStatus.PASSED]
    assert result.counts.pass_to_pass == len(passed) - len(fixed)

    upload = tmp_path / "upload"
    action.flatten_compare(out / "out", upload)
    intake = validate_artifact({p.name: p.read_bytes() for p in upload.iterdir()}, head_sha)
    assert not isinstance(intake, Refused), intake.reason
    assert intake.artifact.claimed.value == "VERIFIED"


def _truth(base: Path, head: Path, image: str) -> tuple[list[str], list[str], int]:
    """FAIL_TO_PASS by pytest itself (fails over base's code, which holds head's tests, and
    passes on head), head's tests that do not pass, and how many results head's run gave."""
    with ThreadPoolExecutor(2) as pool:
        before, after = pool.map(lambda tree: direct(tree, image), (base, head))
    fixed = sorted(
        i for i, s in before.items() if s in ("FAILED", "ERROR") and after.get(i) == "PASSED"
    )
    failing = sorted(i for i, s in after.items() if s in ("FAILED", "ERROR"))
    return fixed, failing, len(after)
