"""Real history: consecutive releases of packages that ship their tests (PyPI sdists, npm
tarballs), each pair made into a two-commit git repo here, compared, and checked against the
runner (pytest, jest, vitest) run directly in the same image and lockdown (head's test files
over base's code, then head): verdict and FAIL_TO_PASS ids.

The archives are pinned by sha256 in tests/corpus/manifest.json ("history") and cached like the
run corpus (tests/integration/test_corpus.py). Each entry names its test paths by hand (read
from the release diff), independently of verify-pr's own rule."""

from __future__ import annotations

import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, git
from tests.integration.helpers import _NODE_DIRECT, MANIFEST, compare, locked_run
from tests.integration.history_helpers import releases, two_commits
from verify_pr.models.compare import MAX_PROOFS, Transition
from verify_pr.models.report import TestCase
from verify_pr.models.verdict import VerdictFile
from verify_pr.verify.runs.select import pytest_node_id

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PYTHON_IMAGE = "verify-pr-python:local"
NODE_IMAGE = "verify-pr-node:local"
IMAGES = {"pytest": PYTHON_IMAGE, "jest": NODE_IMAGE, "vitest": NODE_IMAGE}
# -rA's summary: "WORD node id" or "WORD node id - message" (a parametrized id may hold spaces)
_RESULT_LINE = re.compile(r"^(PASSED|FAILED|ERROR) (.+?)(?: - .*)?$", re.MULTILINE)


def direct_pytest(tree: Path, src_layout: bool = False) -> dict[str, str]:
    """pytest itself: node id -> PASSED/FAILED/ERROR; a src layout runs as after an editable
    install (/work/src on the path)."""
    path = "PYTHONPATH=/work/src " if src_layout else ""
    proc = locked_run(tree, PYTHON_IMAGE, f"{path}python3 -m pytest -p no:cacheprovider -q -rA")
    found = dict((node, word) for word, node in _RESULT_LINE.findall(proc.stdout))
    assert found, proc.stdout[-2000:] + proc.stderr[-2000:]
    return found


def direct_node(tree: Path, runner: str) -> dict[str, str]:
    """jest or vitest itself, from its own JSON report: ``file::describe > ...::title`` ->
    PASSED or the runner's status word in capitals."""
    script = (
        f"{_NODE_DIRECT[runner]} >/tmp/log 2>&1; cat /tmp/direct.json || tail -n 40 /tmp/log >&2"
    )
    proc = locked_run(tree, NODE_IMAGE, script)
    assert proc.stdout.strip(), proc.stderr[-2000:]
    found = {}
    for suite in json.loads(proc.stdout)["testResults"]:
        file = PurePosixPath(suite["name"]).relative_to("/work").as_posix()
        for a in suite["assertionResults"]:
            node = f"{file}::{' > '.join(a['ancestorTitles'])}::{a['title']}"
            found[node] = a["status"].upper()
    assert found, proc.stdout[-2000:]
    return found


def direct_results(tree: Path, entry: dict[str, Any]) -> dict[str, str]:
    runner = entry["runner"]
    if runner == "pytest":
        return direct_pytest(tree, bool(entry.get("src_layout")))
    return direct_node(tree, runner)


def over_base(base: Path, head: Path, dest: Path, test_paths: list[str]) -> Path:
    """By hand, independently of verify-pr's rule: base's tree with head's test paths."""
    shutil.copytree(base, dest)
    for rel in test_paths:
        old = dest / rel
        if old.is_dir():
            shutil.rmtree(old)
        elif old.exists():
            old.unlink()
        if (head / rel).is_dir():
            shutil.copytree(head / rel, old)
        elif (head / rel).exists():
            shutil.copy2(head / rel, old)
    return dest


def direct_transitions(
    entry: dict[str, Any], base: Path, head: Path, scratch: Path
) -> tuple[list[str], list[str]]:
    """FAIL_TO_PASS (fails with head's tests over base's code, passes on head) and the base
    tests gone on head, from three direct runs (in parallel: they are independent)."""
    over = over_base(base, head, scratch / "before", entry["test_paths"])
    with ThreadPoolExecutor(3) as pool:
        own, before, after = pool.map(lambda t: direct_results(t, entry), (base, over, head))
    fixed = sorted(i for i, s in before.items() if s != "PASSED" and after.get(i) == "PASSED")
    return fixed, sorted(set(own) - set(after))


@pytest.mark.parametrize("entry", MANIFEST["history"], ids=lambda e: e["id"])
def test_release_pair_matches_the_runner_run_directly(
    entry: dict[str, Any], tmp_path: Path
) -> None:
    runner = entry["runner"]
    image = IMAGES[runner]
    require_docker(image)
    base, head = releases(entry, tmp_path)
    fixed, removed = direct_transitions(entry, base, head, tmp_path)
    assert (fixed, removed) == (entry["fail_to_pass"], entry["removed"])
    repo, base_sha, head_sha = two_commits(tmp_path, base, head)
    extra = ["--runner", runner, "--flake-runs", "1", "--timeout", "300"]
    if entry["strict_harness"]:
        extra.append("--strict-harness")
    _code, result, _ = compare(tmp_path / "cmp", repo, base_sha, head_sha, image, *extra)
    assert result.verdict == entry["verdict"], result.reasons
    # every reason is the expected one, in order: no other rule fired
    assert len(result.reasons) == len(entry["reasons"]), result.reasons
    for got, want in zip(result.reasons, entry["reasons"], strict=True):
        assert want in got, result.reasons
    assert list(result.harness_files_changed) == entry["harness_files_changed"]
    proved = sorted(str(runner_id(runner, _case(result.head, p.id), head)) for p in result.proofs)
    if len(entry["fail_to_pass"]) <= MAX_PROOFS:
        assert proved == entry["fail_to_pass"]
    else:  # the result lists the first MAX_PROOFS proofs; its transitions hold them all
        assert len(proved) == MAX_PROOFS and set(proved) <= set(entry["fail_to_pass"])
        fixed = [t.id for t in result.transitions if t.transition is Transition.FAIL_TO_PASS]
        ids = sorted(str(runner_id(runner, _case(result.head, i), head)) for i in fixed)
        assert ids == entry["fail_to_pass"]
    # base's own tests (run only for the test files the PR edits) gone from both later runs
    own = result.base_own.testcases if result.base_own else ()
    later = {c.id for c in (*result.before.testcases, *result.head.testcases)}
    gone = sorted({str(runner_id(runner, c, base)) for c in own if c.id not in later})
    assert gone == entry["removed"]


def runner_id(runner: str, case: TestCase, tree: Path) -> str | None:
    """The id the direct run gives the same test."""
    if runner == "pytest":
        return pytest_node_id(case) or _collected_id(case, tree)
    return f"{case.file}::{case.classname or ''}::{case.name}"


def _collected_id(case: TestCase, tree: Path) -> str | None:
    """pytest's id of a test whose report names the file that defines its function, not the
    module that collected it (mistune's test methods, made in tests/__init__.py for each test
    module's class): JUnit's classname is the collected node id, dotted, and its longest prefix
    that names a module of the tree is the file."""
    parts = (case.classname or "").split(".")
    for cut in range(len(parts), 0, -1):
        file = "/".join(parts[:cut]) + ".py"
        if (tree / file).is_file():
            return "::".join([file, *parts[cut:], case.name])
    return None


def _case(side: VerdictFile, test_id: str) -> TestCase:
    return next(c for c in side.testcases if c.id == test_id)


def test_real_fix_whose_base_moved_on_is_verified(tmp_path: Path) -> None:
    require_docker(PYTHON_IMAGE)
    (entry,) = [e for e in MANIFEST["history"] if e["id"] == "parse-1.20.2"]
    base, head = releases(entry, tmp_path)
    repo, fork, pr = two_commits(tmp_path, base, head)
    # the base branch moves on after the PR branched: a new test and a new module
    checkout(repo, fork)
    tip = commit(
        repo,
        {
            "parse_extra.py": "import parse\n\n\ndef year(text):\n"
            '    return parse.parse("{:d}", text)[0]\n',
            "tests/test_moved_on.py": "from parse_extra import year\n\n\n"
            'def test_year():\n    assert year("2024") == 2024\n',
        },
        "base moves on",
    )
    git(repo, "checkout", "--quiet", "-b", "tip")
    code, result, summary = compare(
        tmp_path / "cmp", repo, tip, pr, PYTHON_IMAGE, "--runner", "pytest", "--flake-runs", "1"
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert result.method == "merge-tree" and result.merge_base == fork
    assert "tests/test_moved_on.py" not in result.test_paths  # not the PR's change
    assert (
        sorted(pytest_node_id(_case(result.head, p.id)) or "" for p in result.proofs)
        == (entry["fail_to_pass"])
    )
    moved = [t for t in result.transitions if t.id.endswith("::test_year")]
    assert [t.transition for t in moved] == ["PASS_TO_PASS"]
    assert "merged into base" in summary
