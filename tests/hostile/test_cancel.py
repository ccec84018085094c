"""A cancelled run ends cleanly (issue 37.4): SIGINT or SIGTERM to `verify-pr run` or
`verify-pr compare` (what a job cancel or `cancel-in-progress` sends) removes the run's
containers, its report spools and its work trees, and exits 7 (cancelled).

Each run is a real `verify-pr` process on a PR whose tests sleep long, with a TMPDIR of its own
(so "no temp file left" is exact) and --out outside it. The probe is the daemon's own list of
the containers carrying the process's owner label, in any state, and the TMPDIR's entries. The
positive control is the same run sent SIGKILL, which no process can catch: its containers and
its work tree are still there, so the probe sees what a run leaves behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.action.helpers import VERIFY_ACTION, load, step_env
from tests.git_helpers import commit, init_repo
from tests.hostile.helpers import RECORD, client, containers_of, control
from tests.sandbox_helpers import make_repo
from verify_pr.exit_codes import CompareExit, RunExit, StepExit

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
# The test sleeps on the fixed code only: base's runs (before, and base's own, which joins
# them as the PR edits the test file) end at once and leave their report spools in TMPDIR
# while head's sandbox still runs the PR's code.
SLOW_TESTS = (
    "import time\n\nfrom calc import add\n\n\n"
    "def test_add():\n    if add(2, 3) == 5:\n        time.sleep(300)\n    assert add(2, 3) == 5\n"
)
SLOW_TESTS_EDITED = SLOW_TESTS + "\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"
BOUND_S = 20  # GitHub sends SIGTERM 7.5 s after SIGINT, then SIGKILL: a cancel takes seconds


@dataclass
class Running:
    mode: str
    proc: subprocess.Popen[bytes]
    tmpdir: Path
    out: Path


def _start(tmp_path: Path, image: str, mode: str) -> Running:
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    tmpdir.chmod(0o755)
    out = tmp_path / "out"
    if mode == "compare":
        repo = init_repo(tmp_path / "git")
        base = commit(repo, {"calc.py": BUGGY, "test_calc.py": SLOW_TESTS})
        head = commit(repo, {"calc.py": FIXED, "test_calc.py": SLOW_TESTS_EDITED})
        where = ["--git", str(repo), "--base", base, "--head", head]
    else:  # the fixed code: the run's one sandbox sleeps in the test until it is signalled
        repo = make_repo(tmp_path, {"calc.py": FIXED, "test_calc.py": SLOW_TESTS})
        where = ["--repo", str(repo)]
    argv = [sys.executable, "-m", "verify_pr.verify.cli", mode, *where]
    argv += ["--image", image, "--out", str(out), "--timeout", "300"]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(tmpdir)},
    )
    return Running(mode, proc, tmpdir, out)


@pytest.fixture
def started(tmp_path: Path, python_image: str, request: pytest.FixtureRequest) -> Iterator[Running]:
    run = _start(tmp_path, python_image, request.param)
    try:
        yield run
    finally:
        run.proc.kill()
        run.proc.communicate()
        for container in containers_of(run.proc.pid):  # this test's own process's, only
            client().api.remove_container(container["Id"], force=True)


def _running(run: Running, spools: bool, seconds: float = 240) -> list[str]:
    """The process's running sandboxes, once one runs the PR's sleeping test (for compare:
    once base's runs ended and their report spools are in TMPDIR)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = _still_running(run.proc.pid)
        spooled = list(run.tmpdir.glob("vpr-report-*.tmp"))
        if found and (spooled or not spools):
            return found
        assert run.proc.poll() is None, run.proc.communicate()[1]
        time.sleep(0.2)
    raise AssertionError("the run's sandboxes never started")


def _still_running(owner: int) -> list[str]:
    """The owner's sandboxes running now and still a second later: past the nonce, in the
    PR's test (head's sleeps; a base run that fails at once is gone by then, so a probe never
    waits on a sandbox that ends by itself)."""

    def running() -> set[str]:
        return {str(c["Id"]) for c in containers_of(owner) if c["State"] == "running"}

    first = running()
    if not first:
        return []
    time.sleep(1)
    return sorted(first & running())


def _cancel(run: Running, *signals: signal.Signals) -> tuple[int, str, float]:
    started = time.monotonic()
    for sig in signals:
        run.proc.send_signal(sig)
        time.sleep(0.05)  # the second lands while the first one's cleanup runs
    _, err = run.proc.communicate(timeout=BOUND_S)
    return run.proc.returncode, err.decode(errors="replace"), time.monotonic() - started


CASES = [
    ("compare", (signal.SIGTERM,)),
    ("compare", (signal.SIGINT,)),
    ("compare", (signal.SIGINT, signal.SIGTERM)),
    ("run", (signal.SIGTERM,)),
    ("run", (signal.SIGINT, signal.SIGTERM)),
]


@pytest.mark.parametrize(
    ("started", "signals"),
    CASES,
    indirect=["started"],
    ids=[f"{mode}-{'-'.join(s.name for s in sigs)}" for mode, sigs in CASES],
)
def test_a_signal_removes_the_runs_containers_and_temp_files(
    started: Running, signals: tuple[signal.Signals, ...]
) -> None:
    live = _running(started, spools=started.mode == "compare")
    spooled = sorted(p.name for p in started.tmpdir.glob("vpr-report-*.tmp"))
    code, err, took = _cancel(started, *signals)
    assert code == RunExit.CANCELLED == CompareExit.CANCELLED, err
    assert f"cancelled by {signals[0].name}" in err, err
    assert "Traceback" not in err, err
    assert containers_of(started.proc.pid) == [], "a container of the run is left"
    assert sorted(p.name for p in started.tmpdir.iterdir()) == [], "a temp file is left"
    assert not (started.out / "verdict.json").exists()  # a cancel is no verdict
    assert not (started.out / "verify-pr-result.json").exists()
    RECORD.append(("outcome", f"exit 7 in {took:.1f} s; {len(live)} running sandbox(es) removed"))
    control(
        f"{len(live)} sandbox(es) running and {len(spooled)} report spool(s) in TMPDIR when "
        "the signal was sent"
    )


@pytest.mark.parametrize("started", ["compare", "run"], indirect=True)
def test_sigkill_leaves_what_the_probe_looks_for(started: Running) -> None:
    """Positive control: SIGKILL gives the run no chance to clean up. Its sandboxes are still
    there (the next run's reaper removes them) and so is its work in TMPDIR: the probes above
    see what a run leaves behind."""
    live = _running(started, spools=started.mode == "compare")
    started.proc.send_signal(signal.SIGKILL)
    started.proc.communicate(timeout=BOUND_S)
    left = [str(c["Id"]) for c in containers_of(started.proc.pid)]
    assert set(live) & set(left), (live, left)  # head's, still running; base's may have ended
    entries = sorted(p.name for p in started.tmpdir.iterdir())
    if started.mode == "compare":  # run makes no temp file before its sandbox ends
        assert any(e.startswith("vpr-report-") for e in entries), entries
        assert any(e.startswith("verify-pr-compare-") for e in entries), entries
    control(f"after SIGKILL: {len(left)} container(s) and TMPDIR {entries} left")


# -- the verify step: the signal reaches the step only; it goes on to the verifier child ----


@dataclass
class Step:
    proc: subprocess.Popen[bytes]
    tmpdir: Path

    def verifier(self) -> int:
        """The verifier's pid: the step's descendant running ``verify_pr.verify.cli``."""
        end = time.monotonic() + 60
        while time.monotonic() < end:
            for pid in _descendants(self.proc.pid):
                with contextlib.suppress(OSError):
                    if b"verify_pr.verify.cli" in Path(f"/proc/{pid}/cmdline").read_bytes():
                        return pid
            time.sleep(0.1)
        raise AssertionError("the step launched no verifier")


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                found += [int(child), *_descendants(int(child))]
    return found


@pytest.fixture
def step(tmp_path: Path, python_image: str) -> Iterator[Step]:
    env = step_env(tmp_path)
    workspace = Path(env["GITHUB_WORKSPACE"])
    init_repo(workspace)
    base = commit(workspace, {"calc.py": BUGGY, "test_calc.py": SLOW_TESTS})
    head = commit(workspace, {"calc.py": FIXED, "test_calc.py": SLOW_TESTS_EDITED})
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": base}, "head": {"sha": head}}}))
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    tmpdir.chmod(0o755)
    env.update(
        {
            "INPUT_IMAGE": python_image,
            "INPUT_MODE": "compare",
            "INPUT_TIMEOUT": "300",
            "GITHUB_EVENT_PATH": str(event),
            "TMPDIR": str(tmpdir),
            "DOCKER_HOST": os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock"),
        }
    )
    # the step as the runner starts it: action.yml's run line in bash, which the runner then
    # signals by its pid (not its process group)
    run_line = next(s for s in load(VERIFY_ACTION)["runs"]["steps"] if s.get("id") == "verify")
    script = tmp_path / "step.sh"
    script.write_text(run_line["run"], encoding="utf-8")
    (Path(env["RUNNER_TEMP"]) / "verify-pr-venv").symlink_to(sys.prefix)
    env["ACTION_PATH"] = str(VERIFY_ACTION.parent)
    proc = subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # a group of its own: the teardown ends whatever it left
    )
    run = Step(proc, tmpdir)
    verifier = 0
    try:
        verifier = run.verifier()
        yield run
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # this test's own group, by its id
        proc.communicate()
        if verifier:
            for container in containers_of(verifier):  # this test's own verifier's, only
                client().api.remove_container(container["Id"], force=True)


def _verifier_running(step: Step) -> tuple[int, list[str]]:
    verifier = step.verifier()
    end = time.monotonic() + 240
    while time.monotonic() < end:
        found = _still_running(verifier)
        if found:
            return verifier, found
        assert step.proc.poll() is None, step.proc.communicate()
        time.sleep(0.2)
    raise AssertionError("the verifier's sandboxes never started")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_to_the_verify_step_reaches_its_verifier(step: Step, sig: signal.Signals) -> None:
    verifier, live = _verifier_running(step)
    step.proc.send_signal(sig)  # the step alone, as the runner signals the step's process
    out, err = step.proc.communicate(timeout=BOUND_S)
    assert step.proc.returncode == StepExit.CANCELLED, (out, err)
    assert b"::error title=verify-pr cancelled::" in out, out
    assert not Path(f"/proc/{verifier}").exists(), "the verifier outlived the step"
    assert containers_of(verifier) == [], "a container of the verifier is left"
    assert sorted(p.name for p in step.tmpdir.iterdir()) == [], "a temp file is left"
    RECORD.append(("outcome", f"step exit 7; the verifier's {len(live)} sandbox(es) removed"))
    control(f"{len(live)} sandbox(es) of the verifier running when the step got {sig.name}")


def test_sigkill_to_the_step_leaves_its_verifier_running(step: Step) -> None:
    """Positive control: a step that cannot pass the signal on (SIGKILL) leaves its verifier
    and the verifier's sandboxes running: the probe above sees a verifier left behind."""
    verifier, live = _verifier_running(step)
    step.proc.send_signal(signal.SIGKILL)
    step.proc.wait(timeout=BOUND_S)  # its pipes may be held by what it leaves running
    assert Path(f"/proc/{verifier}").exists()
    assert set(live) & {str(c["Id"]) for c in containers_of(verifier)}
    control("after SIGKILL to the step: its verifier and its sandboxes still run")
