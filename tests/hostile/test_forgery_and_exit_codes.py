"""Forged sentinels, killing the wrapper, and the check's own exit codes.

No valid sentinel is never a pass: the worst the check can get by attacking the wrapper is
ERROR (or TIMEOUT when it freezes it)."""

from __future__ import annotations

import os
from pathlib import Path

import docker.types
import pytest

from tests.hostile.helpers import RECORD, attack, containers_of, control, expect, loose
from tests.sandbox_helpers import make_repo
from verify_pr.sandbox import engine
from verify_pr.sandbox.engine import EngineSettings
from verify_pr.sandbox.run import SandboxRequest, run_sandbox

GUESS = "0123456789abcdef0123456789abcdef"
FORGE = "printf '\\nVPR1 {n} RC 0 none 0\\n\\nVPR1 {n} END\\n'"


def _forge(nonce: str) -> str:
    return FORGE.format(n=nonce)


@pytest.mark.parametrize(
    "cmd",
    [
        pytest.param("printf '\\nVPR1 RC 0 none 0\\n\\nVPR1 END\\n'; exit 3", id="no-nonce"),
        pytest.param(_forge(GUESS) + "; exit 3", id="guessed-nonce"),
        pytest.param(
            "printf 'VPR1 partial line, no newline'; exit 3", id="partial-line-before-the-real"
        ),
        pytest.param(_forge(GUESS) + "; echo after-the-sentinel; exit 3", id="output-after"),
    ],
)
def test_forged_sentinel_is_just_output(minimal_image: str, tmp_path: Path, cmd: str) -> None:
    run = attack(tmp_path, minimal_image, cmd)
    expect(run, "COMPLETED", 3, "the check exited 3")
    assert b"VPR1" in run.output  # the forgery is kept, as untrusted output
    control("a sentinel with the right nonce is accepted (test_right_nonce_is_accepted)")


def test_previous_runs_nonce_is_refused(minimal_image: str, tmp_path: Path) -> None:
    seen: list[str] = []
    real = engine.new_nonce

    def recording() -> str:
        seen.append(real())
        return seen[-1]

    settings = EngineSettings(new_nonce=recording)
    repo = make_repo(tmp_path)
    first = run_sandbox(SandboxRequest(repo, "true", minimal_image, 30, 1000), settings)
    assert first.result.status == "COMPLETED" and len(seen) == 1
    cmd = _forge(seen[0]) + "; exit 3"
    second = run_sandbox(SandboxRequest(repo, cmd, minimal_image, 30, 1000), settings)
    assert (second.result.status, second.result.exit_code) == ("COMPLETED", 3)
    assert seen[0] != seen[1] and seen[0].encode() in second.output
    assert not containers_of(os.getpid())
    RECORD.append(("outcome", "COMPLETED exit 3"))
    control("a sentinel with the right nonce is accepted (test_right_nonce_is_accepted)")


def test_right_nonce_is_accepted(minimal_image: str, tmp_path: Path) -> None:
    """The positive control of every forgery: the same forged trailer, with this run's nonce
    and the wrapper killed so nothing follows it, is taken (so the probes above can fail)."""
    nonce = "5eed" * 8
    cmd = (
        f"printf '\\nVPR1 {nonce} RC 137 none 0\\n\\nVPR1 {nonce} END\\n' > /proc/1/fd/1; "
        "kill -9 $PPID; sleep 5"
    )
    request = SandboxRequest(make_repo(tmp_path), cmd, minimal_image, 30, 1000)
    run = run_sandbox(request, EngineSettings(new_nonce=lambda: nonce))
    assert (run.result.status, run.result.exit_code) == ("COMPLETED", 137)
    assert not containers_of(os.getpid())
    RECORD.append(("outcome", "COMPLETED exit 137 (forgery accepted: the nonce was given)"))
    control("the parser accepts a trailer that carries the nonce")


@pytest.mark.parametrize(
    "kill",
    [
        pytest.param("kill -9 -1", id="kill-9-minus-1"),
        pytest.param("kill $PPID", id="kill-ppid"),
        pytest.param("kill -9 $PPID", id="kill-9-ppid"),
        pytest.param("kill -TERM 1", id="kill-term-1"),
    ],
)
def test_killing_the_wrapper_is_error(minimal_image: str, tmp_path: Path, kill: str) -> None:
    forged = _forge(GUESS)
    cmd = f"echo before; {forged}; {kill}; sleep 3; exit 0"
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "20")
    expect(run, ("ERROR", "TIMEOUT"), None, "sentinel")
    # Control: the same check without the kill completes, so the kill is what ended it.
    (tmp_path / "ctl").mkdir()
    control_run = attack(tmp_path / "ctl", minimal_image, cmd.replace(kill, "true"))
    assert control_run.result["status"] == "COMPLETED"
    control("without the kill the same check is COMPLETED")


EXITS = [
    pytest.param("exit 125", 125, id="125"),
    pytest.param("/repo/README", 126, id="126-not-executable"),
    pytest.param("no-such-command-here", 127, id="127-not-found"),
    pytest.param("kill -9 $$", 137, id="137-sigkill-self"),
    pytest.param("sh -c 'kill -SEGV $$'; echo core=$(ulimit -c); ls /work", 0, id="sigsegv-core"),
]


@pytest.mark.parametrize(("cmd", "code"), EXITS)
def test_check_exit_codes_are_reported_as_the_checks(
    minimal_image: str, tmp_path: Path, cmd: str, code: int
) -> None:
    run = attack(tmp_path, minimal_image, cmd)
    expect(run, "COMPLETED", code, f"the check exited {code}")
    if "SEGV" in cmd:
        assert b"core=0" in run.output and b"core" not in run.output.split(b"core=0")[1]
        unlimited = docker.types.Ulimit(name="core", soft=-1, hard=-1)
        loose_code, logs = loose(cmd, ulimits=[unlimited])
        assert b"core=unlimited" in logs, logs
        control("a container without the core=0 ulimit may dump cores")
        return
    loose_code, logs = loose(cmd.replace("/repo/README", "/etc/passwd"), init=True)
    assert loose_code == code, (loose_code, logs)
    control(f"the same command exits {code} in a plain container")
