"""Eight ``verify-pr compare`` runs started together, as eight users of one machine would.

Each is a subprocess of the real CLI with its own TMPDIR and its own CPU and memory, so that
what it leaves behind and what its sandboxes got can be told apart from its siblings' (and
from other users of the daemon, whose containers are never counted: only those whose owner
label names one of these eight pids). Each must end with the verdict the same comparison
gets alone; no container and no temporary folder of theirs may be left; every sandbox result
must carry its own run's limits, which the engine checked on the created container before
start (it refuses a container whose CPUs or memory differ from what its policy asked for).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import docker
import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from verify_pr.models.compare import CompareResult
from verify_pr.sandbox.policy import LABEL_OWNER
from verify_pr.sandbox.resources import MIB

pytestmark = [pytest.mark.docker, pytest.mark.slow]

IMAGE = "verify-pr-python:local"
RUNS = 8
WALL_S = 1800  # a bound for a wedged run only: eight at once on two shared cores is slow
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


@dataclass(frozen=True)
class Pair:
    name: str
    base: str
    head: str
    verdict: str


@dataclass
class Done:
    pid: int
    code: int
    stderr: str
    out: Path
    tmp: Path

    @property
    def result(self) -> CompareResult:
        text = (self.out / "verify-pr-result.json").read_text()
        return CompareResult.model_validate_json(text)


@pytest.fixture(scope="module")
def repo_and_pairs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Pair]]:
    require_docker(IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("eight") / "repo")
    base = commit(repo, {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "test_calc.py": TESTS})
    fix = commit(repo, {"calc.py": FIXED}, "fix add")
    checkout(repo, fix)
    revert = commit(repo, {"calc.py": BUGGY}, "revert the fix")
    return repo, [
        Pair("fix", base, fix, "VERIFIED"),
        Pair("revert", fix, revert, "NOT_PROVEN"),
    ]


def limits(i: int) -> tuple[str, str]:
    """Run i's own CPUs and memory: no two runs share both."""
    return ("0.5" if i % 2 else "1"), f"{512 + 32 * i}m"


def start(repo: Path, pair: Pair, where: Path, i: int) -> tuple[subprocess.Popen[bytes], Path]:
    out, tmp = where / "out", where / "tmp"
    tmp.mkdir(parents=True)
    cpus, memory = limits(i)
    argv = [sys.executable, "-m", "verify_pr.verify.cli", "compare", "--git", str(repo)]
    argv += ["--base", pair.base, "--head", pair.head, "--image", IMAGE, "--out", str(out)]
    argv += ["--timeout", "120", "--cpus", cpus, "--memory", memory]
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return proc, tmp


def finish(proc: subprocess.Popen[bytes], out: Path, tmp: Path) -> Done:
    try:
        _, stderr = proc.communicate(timeout=WALL_S)
    finally:
        proc.kill()
    return Done(proc.pid, proc.returncode, stderr.decode(errors="replace"), out, tmp)


def left_behind(pids: set[int]) -> list[str]:
    """Containers, any state, whose owner is one of these runners on this host."""
    client = docker.from_env(timeout=120)
    try:
        found = client.api.containers(all=True, filters={"label": LABEL_OWNER})
    finally:
        client.close()
    host = os.uname().nodename
    owners = {f"{host}:{pid}" for pid in pids}
    return [c["Id"] for c in found if (c.get("Labels") or {}).get(LABEL_OWNER) in owners]


def transitions(result: CompareResult) -> dict[str, str]:
    return {t.id: t.transition.value for t in result.transitions}


def sandbox_results(out: Path) -> list[dict[str, object]]:
    found = sorted(out.glob("*/result.json"))
    assert found, f"no sandbox result under {out}"
    return [json.loads(path.read_text()) for path in found]


def test_eight_compares_at_once_end_as_each_does_alone(
    repo_and_pairs: tuple[Path, list[Pair]], tmp_path: Path
) -> None:
    repo, pairs = repo_and_pairs
    # Alone first: each comparison's own verdict and transitions, the reference.
    alone: dict[str, Done] = {}
    for pair in pairs:
        proc, tmp = start(repo, pair, tmp_path / f"alone-{pair.name}", 0)
        alone[pair.name] = finish(proc, tmp_path / f"alone-{pair.name}" / "out", tmp)
        assert alone[pair.name].result.verdict == pair.verdict, alone[pair.name].stderr

    started = []
    for i in range(RUNS):
        pair = pairs[i % len(pairs)]
        proc, tmp = start(repo, pair, tmp_path / f"run-{i}", i)
        started.append((i, pair, proc, tmp))
    done = [
        (i, pair, finish(proc, tmp_path / f"run-{i}" / "out", tmp))
        for i, pair, proc, tmp in started
    ]

    assert left_behind({d.pid for _, _, d in done}) == [], "a run left a container behind"
    for i, pair, run in done:
        reference = alone[pair.name]
        assert run.code == reference.code, (i, run.stderr)
        assert run.result.verdict == pair.verdict, (i, run.result.reasons)
        assert transitions(run.result) == transitions(reference.result), i
        assert list(run.tmp.iterdir()) == [], f"run {i} left {list(run.tmp.iterdir())}"
        cpus, memory = limits(i)
        for sandbox in sandbox_results(run.out):
            assert sandbox["status"] == "COMPLETED", (i, sandbox)
            assert sandbox["cpus"] == float(cpus), (i, sandbox)
            assert sandbox["memory_bytes"] == int(memory[:-1]) * MIB, (i, sandbox)
    # The alone runs left nothing either (their pids are gone, their labels must be too).
    assert left_behind({d.pid for d in alone.values()}) == []
