"""--cpus and --memory: bounded, validated, and carried into the policy and --print-argv."""

from __future__ import annotations

import pytest

from verify_pr.errors import InputRefused
from verify_pr.sandbox.cli import main
from verify_pr.sandbox.resources import (
    DEFAULT_RESOURCES,
    parse_cpus,
    parse_memory,
    parse_resources,
)
from verify_pr.sandbox.run import SandboxRequest, make_policy


def test_defaults_are_the_specs() -> None:
    assert (DEFAULT_RESOURCES.cpus, DEFAULT_RESOURCES.memory) == (1.0, "512m")
    assert parse_resources(None, None) == DEFAULT_RESOURCES


@pytest.mark.parametrize(
    ("text", "nano"),
    [("1", 10**9), ("2", 2 * 10**9), ("1.5", 15 * 10**8), ("0.25", 25 * 10**7), ("64", 64 * 10**9)],
)
def test_cpus_accepted(text: str, nano: int) -> None:
    assert parse_cpus(text) == nano


@pytest.mark.parametrize("text", ["0", "0.1", "64.01", "65", "-1", "1e3", " 2", "2.", "1.005", ""])
def test_cpus_refused(text: str) -> None:
    with pytest.raises(InputRefused, match="--cpus"):
        parse_cpus(text)


@pytest.mark.parametrize(("text", "mib"), [("512m", 512), ("2g", 2048), ("64g", 65536)])
def test_memory_accepted(text: str, mib: int) -> None:
    assert parse_memory(text) == mib


@pytest.mark.parametrize("text", ["511m", "256m", "65g", "1G", "1gb", "1024", "-1g", "1.5g", ""])
def test_memory_refused(text: str) -> None:
    with pytest.raises(InputRefused, match="--memory"):
        parse_memory(text)


def test_policy_and_argv_carry_the_resources(tmp_path: object) -> None:
    from pathlib import Path

    req = SandboxRequest(Path("/r"), "true", "img", 10, 100, None, parse_resources("2", "1g"))
    policy = make_policy(req, "/bin", "abc")
    assert (policy.nano_cpus, policy.memory) == (2 * 10**9, "1024m")
    argv = policy.docker_argv()
    assert argv[argv.index("--cpus") + 1] == "2"
    assert argv[argv.index("--memory") + 1] == "1024m"
    assert argv[argv.index("--memory-swap") + 1] == "1024m"


def test_print_argv_shows_them(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "repo").mkdir()
    args = ["--repo", str(root / "repo"), "--out", str(root / "out"), "--cmd", "true"]
    args += ["--image", "img:1", "--cpus", "1.5", "--memory", "2g", "--print-argv"]
    assert main(args) == 0
    line = capsys.readouterr().out
    assert "--cpus 1.5 " in line and "--memory 2048m " in line
    assert main([*args[:-5], "--cpus", "100", "--print-argv"]) == 2
