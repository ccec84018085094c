"""The README's install block for the CLI stays true: it installs this checkout into a venv,
the commands it names are this package's entry points, and each example line parses."""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

import pytest

from verify_pr.errors import InputRefused
from verify_pr.verify import cli

ROOT = Path(__file__).resolve().parents[2]


def install_block() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## The CLI on your machine\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()


def test_the_block_installs_this_checkout_into_a_venv() -> None:
    lines = install_block()
    assert "python3 -m venv .venv && .venv/bin/pip install ." in lines
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    assert scripts["verify-pr"] == "verify_pr.verify.cli:main"
    named = {line.split()[0] for line in lines if line.startswith(".venv/bin/")}
    assert named == {".venv/bin/verify-pr"}


def test_each_example_command_parses() -> None:
    examples = [shlex.split(line)[1:] for line in install_block() if line.startswith(".venv/bin/")]
    assert {args[0] for args in examples} == {"run", "compare"}
    for args in examples:
        cli.build_parser().parse_args(args)  # refused flags would raise InputRefused


def test_the_parse_check_refuses_a_wrong_flag() -> None:
    with pytest.raises(InputRefused):
        cli.build_parser().parse_args(["compare", "--git", "x", "--image", "i", "--bse", "m"])
