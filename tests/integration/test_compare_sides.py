"""The sides cannot be told apart, and a proof must run changed code (issue 33, class 1).

Every probe of ``tests/test_sides.py`` (the attack PR's own test file) looks from inside a
test at one thing that used to differ between "before" and head (docs/threat-model.md, "What
could tell the sides apart") and fails where "before" used to be: each would have been a
FAIL_TO_PASS test of a PR that fixes nothing, and each runs a changed line, so the
changed-code rule alone does not stop it. The compare must show none of them as FAIL_TO_PASS.
The positive control runs the same probes directly in the sandbox, on a tree made to differ
in each of those ways (every probe fails) and on a settled tree with the tracer on (every
probe passes): each probe sees a real difference.

The changed-code rule: a test that reads the changed file as text (no line of it runs) and a
tests-only PR are NOT PROVEN; real fixes, by a changed line or by a removed one, are VERIFIED
with the lines their proofs ran. Real containers on the real daemon.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare
from verify_pr.models.compare import ChangedCode, CompareResult, Transition
from verify_pr.models.report import TestStatus
from verify_pr.runners.registry import runner_named
from verify_pr.verify.coverage.patch import Session
from verify_pr.verify.runs.suite import plan_detected, run_suite
from verify_pr.verify.trees import sides

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IMAGE = "verify-pr-python:local"
CALC = "def add(a, b):\n    b = -b\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST_MUL = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
TEST_ADD = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
# mul's result, computed over two lines: every probe runs a line the PR changed
MUL_TWO_LINES = CALC.replace("    return a * b\n", "    product = a * b\n    return product\n")
PROBES = """import os
import stat
from pathlib import Path

from calc import mul

REPO = Path("/repo")


def _entries():
    for top, folders, files in os.walk(REPO):
        folders.sort()
        yield Path(top)
        for name in sorted(files):
            yield Path(top) / name


def test_one_mtime():
    assert mul(2, 3) == 6
    times = {os.lstat(p).st_mtime_ns for p in _entries()}
    assert len(times) == 1, sorted(times)


def test_normal_modes():
    assert mul(2, 3) == 6
    for p in _entries():
        mode = stat.S_IMODE(os.lstat(p).st_mode)
        assert mode in ((0o755,) if p.is_dir() else (0o644, 0o755)), (str(p), oct(mode))


def test_one_owner():
    assert mul(2, 3) == 6
    assert len({(os.lstat(p).st_uid, os.lstat(p).st_gid) for p in _entries()}) == 1


def test_mount_source_names_no_side():
    assert mul(2, 3) == 6
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if fields[4] == "/repo":
            assert not fields[3].endswith(("/before", "/base")), fields[3]


def test_tracer_is_on():
    assert mul(2, 3) == 6
    assert b"zlib" in Path("/proc/self/cmdline").read_bytes()
"""
SIDE_PROBES = (
    "test_one_mtime",
    "test_normal_modes",
    "test_mount_source_names_no_side",
    "test_tracer_is_on",
)
# the test reads the changed file as text: it turns green with the PR, yet runs none of it
READS_SOURCE = (
    "from pathlib import Path\n\n\ndef test_commutes():\n"
    '    assert "b * a" in (Path(__file__).parent.parent / "calc.py").read_text()\n'
)


# When the tree was written, as a test reads it: the change times (no call sets them back) of
# three entries and the span of the whole tree. Its failure message carries them out.
TIMES_PROBE = """import json
import os

from calc import mul


def test_report_times():
    assert mul(2, 3) == 6
    ctime = {}
    for top, folders, files in os.walk("/repo"):
        for name in (".", *folders, *files):
            path = os.path.normpath(os.path.join(top, name))
            ctime[os.path.relpath(path, "/repo")] = os.lstat(path).st_ctime_ns
    named = {p: ctime[p] for p in (".", "calc.py", "tests/test_times.py")}
    span = max(ctime.values()) - min(ctime.values())
    raise AssertionError("VPR-TIMES " + json.dumps({"named": named, "span": span}))
"""
FILLER = {f"tests/filler/f{i:04}.txt": f"{i}\n" for i in range(1000)}


@dataclass
class Repo:
    repo: Path
    base: str
    heads: dict[str, str]


@pytest.fixture(scope="module")
def calc_repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    require_docker(IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("sides") / "repo")
    base = commit(
        repo,
        {"pytest.ini": "[pytest]\n", "calc.py": CALC, "tests/test_calc.py": TEST_MUL},
        "base: add() subtracts",
    )
    variants: dict[str, dict[str, str | bytes | None]] = {
        # honest twins: the fix changes a line, or only removes one
        "fix_changes": {"calc.py": CALC.replace("b = -b", "b = +b"), "tests/test_add.py": TEST_ADD},
        "fix_removes": {"calc.py": CALC.replace("    b = -b\n", ""), "tests/test_add.py": TEST_ADD},
        # attacks
        "side_probes": {"calc.py": MUL_TWO_LINES, "tests/test_sides.py": PROBES},
        "times_probe": {"calc.py": MUL_TWO_LINES, "tests/test_times.py": TIMES_PROBE, **FILLER},
        "reads_source": {
            "calc.py": CALC.replace("return a * b", "return b * a"),
            "tests/test_source.py": READS_SOURCE,
        },
        "tests_only_reset": {
            "tests/test_calc.py": PROBES + "\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
            "tests/data/reset.txt": "state: clean\n",
        },
    }
    heads = {}
    for name, files in variants.items():
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return Repo(repo, base, heads)


def _compare(calc_repo: Repo, name: str, tmp_path: Path) -> CompareResult:
    head = calc_repo.heads[name]
    _code, result, _summary = compare(
        tmp_path, calc_repo.repo, calc_repo.base, head, IMAGE, "--flake-runs", "1"
    )
    return result


def _fail_to_pass(result: CompareResult) -> list[str]:
    return [t.id for t in result.transitions if t.transition is Transition.FAIL_TO_PASS]


def test_no_probe_tells_the_sides_apart(calc_repo: Repo, tmp_path: Path) -> None:
    result = _compare(calc_repo, "side_probes", tmp_path)
    assert result.verdict != "VERIFIED", result.reasons
    assert _fail_to_pass(result) == [], result.reasons
    probes = {t.id.rsplit("::", 1)[-1]: t for t in result.transitions if "test_sides" in t.id}
    assert set(SIDE_PROBES) <= set(probes)
    assert all(t.transition is Transition.PASS_TO_PASS for t in probes.values()), probes


def _times(message: str | None) -> dict[str, Any]:
    assert message is not None and "VPR-TIMES " in message, message
    found: dict[str, Any] = json.loads(message.split("VPR-TIMES ", 1)[1].splitlines()[0])
    return found


def _far_apart(one: dict[str, Any], two: dict[str, Any]) -> dict[str, int]:
    """The entries whose change times differ between two trees by more than a quarter of the
    time either took to write (1,000 filler files: each entry is one of about 1,000 writes)."""
    limit = min(one["span"], two["span"]) // 4
    gaps = {p: abs(one["named"][p] - two["named"][p]) for p in one["named"]}
    return {p: gap for p, gap in gaps.items() if gap > limit}


def test_before_and_head_were_written_at_once(calc_repo: Repo, tmp_path: Path) -> None:
    """What a test reads of when /repo was written is the same on both sides: each entry's
    change time on before is within a small part of the tree's writing time of head's (they
    used to differ by a whole tree's writing: before was settled, then head)."""
    compare(tmp_path, calc_repo.repo, calc_repo.base, calc_repo.heads["times_probe"], IMAGE)
    sides_read = []
    for side in ("base", "head"):  # "base": before's run (base's code, the PR's tests)
        verdict = json.loads((tmp_path / "out" / side / "verdict.json").read_text())
        (case,) = [c for c in verdict["testcases"] if c["name"] == "test_report_times"]
        sides_read.append(_times(case["message"]))
    assert sides_read[0]["span"] > 0 and sides_read[1]["span"] > 0
    assert _far_apart(*sides_read) == {}, sides_read


def test_the_times_probe_sees_trees_written_apart(tmp_path: Path) -> None:
    """Positive control: the same probe on two trees settled one after the other (as before
    and head were) finds every named entry far apart."""
    require_docker(IMAGE)
    raw = tmp_path / "raw"
    (raw / "tests" / "filler").mkdir(parents=True)
    (raw / "calc.py").write_text(MUL_TWO_LINES)
    (raw / "pytest.ini").write_text("[pytest]\n")
    (raw / "tests" / "test_times.py").write_text(TIMES_PROBE)
    for path, text in FILLER.items():
        (raw / path).write_text(text)
    found = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        tree = sides.settle(raw, tmp_path / name, keep=True)
        outcome = run_suite(tree, plan_detected(tree, "pytest"), IMAGE, 60, 1 << 20)
        assert outcome.report is not None, outcome.verdict.reasons
        (case,) = [c for c in outcome.report.testcases if c.name == "test_report_times"]
        found.append(_times(case.message))
    assert set(_far_apart(*found)) == {".", "calc.py", "tests/test_times.py"}, found


def _probe_tree(root: Path) -> Path:
    """The attack's files written by hand at ``root``, with mixed times and modes."""
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "z_data.txt").write_text("z\n")
    (root / "tests" / "test_sides.py").write_text(PROBES)
    (root / "calc.py").write_text(MUL_TWO_LINES)
    (root / "pytest.ini").write_text("[pytest]\n")
    os.chmod(root / "tests" / "z_data.txt", 0o664)
    os.utime(root / "calc.py", (1_200_000_000, 1_200_000_000))
    for path in (root, root / "tests"):
        os.chmod(path, 0o755)  # noqa: S103 (uid 65534 reads the tree)
    for path in (root / "tests" / "test_sides.py", root / "calc.py", root / "pytest.ini"):
        os.chmod(path, 0o644)
    return root


def _probe_statuses(tree: Path, traced: bool) -> dict[str, TestStatus]:
    plan = plan_detected(tree, "pytest")
    if traced:
        plan = Session(runner_named("pytest"), tree, {"calc.py": (6, 7)}).plan(plan)
        assert plan.coverage_path is not None
    outcome = run_suite(tree, plan, IMAGE, 60, 1 << 20)
    assert outcome.report is not None, outcome.verdict.reasons
    return {c.name: c.status for c in outcome.report.testcases}


def test_each_probe_sees_a_real_difference(tmp_path: Path) -> None:
    """Positive control: the probes fail on a tree that differs in each way (mixed times and
    modes, a mount source named ``before``, no tracer) and pass on the
    same files settled and traced, as every side of a compare now is."""
    require_docker(IMAGE)
    raw = _probe_tree(tmp_path / "raw" / "before")
    differs = _probe_statuses(raw, traced=False)
    assert {p: differs[p] for p in SIDE_PROBES} == dict.fromkeys(SIDE_PROBES, TestStatus.FAILED)
    copy = tmp_path / "copy"
    shutil.copytree(raw, copy, symlinks=True)
    settled = sides.settle(copy, tmp_path)
    same = _probe_statuses(settled, traced=True)
    assert {p: same[p] for p in SIDE_PROBES} == dict.fromkeys(SIDE_PROBES, TestStatus.PASSED)
    # one owner on both: the host user writes every tree (no second user to differ by)
    assert differs["test_one_owner"] == same["test_one_owner"] == TestStatus.PASSED


def test_a_test_that_reads_the_changed_file_runs_no_changed_line(
    calc_repo: Repo, tmp_path: Path
) -> None:
    result = _compare(calc_repo, "reads_source", tmp_path)
    assert result.verdict == "NOT_PROVEN", result.reasons
    assert [p.changed_code for p in result.proofs] == [ChangedCode.NOT_RUN]
    assert any("ran none of the changed lines" in r for r in result.reasons), result.reasons


def test_a_tests_only_pr_with_a_data_file_is_not_proven(calc_repo: Repo, tmp_path: Path) -> None:
    result = _compare(calc_repo, "tests_only_reset", tmp_path)
    assert result.verdict != "VERIFIED", result.reasons
    assert result.code_paths == ()
    assert _fail_to_pass(result) == [], result.reasons


@pytest.mark.parametrize(
    ("name", "ran"),
    [
        ("fix_changes", ("before calc.py:2", "head calc.py:2")),
        ("fix_removes", ("before calc.py:2",)),
    ],
)
def test_a_real_fix_runs_its_changed_line(
    calc_repo: Repo, tmp_path: Path, name: str, ran: tuple[str, ...]
) -> None:
    result = _compare(calc_repo, name, tmp_path)
    assert result.verdict == "VERIFIED", result.reasons
    (proof,) = result.proofs
    assert proof.changed_code is ChangedCode.RAN
    assert set(ran) <= set(proof.changed_code_lines), proof.changed_code_lines
    assert "ran a line the PR changed in a code file" in result.reasons[0]


def test_a_runner_without_a_tracer_says_so_instead_of_claiming_it(tmp_path: Path) -> None:
    """bun: no tracer verify-pr reads, so a real fix stays VERIFIED and the reason says which
    code its proof ran was not measured (docs/coverage.md)."""
    image = "verify-pr-bun:local"
    require_docker(image)
    repo = init_repo(tmp_path / "repo")
    calc = "export const add = (a: number, b: number) => a - b;\nexport const mul = (a: number, b: number) => a * b;\n"
    test_mul = 'import { expect, test } from "bun:test";\nimport { mul } from "./calc";\n\ntest("mul", () => {\n  expect(mul(2, 3)).toBe(6);\n});\n'
    test_add = test_mul.replace("mul", "add").replace("toBe(6)", "toBe(5)")
    package = '{"name":"fx-sides","private":true,"scripts":{"test":"bun test"}}\n'
    base = commit(
        repo,
        {"package.json": package, "src/calc.ts": calc, "src/mul.test.ts": test_mul},
        "base",
    )
    head = commit(
        repo, {"src/calc.ts": calc.replace("a - b", "a + b"), "src/add.test.ts": test_add}, "fix"
    )
    _code, result, summary = compare(tmp_path / "cmp", repo, base, head, image, "--flake-runs", "1")
    assert result.verdict == "VERIFIED", result.reasons
    assert [p.changed_code for p in result.proofs] == [ChangedCode.NOT_MEASURED]
    assert "which code they ran was not measured" in result.reasons[0]
    assert "which code it ran was not measured" in summary
