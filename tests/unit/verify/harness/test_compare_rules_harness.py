"""The harness of a compare: which paths are harness, base's harness laid over head's tree,
and the harness notes that keep a compare from VERIFIED."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.verify.helpers import FIXED_BASE, FIXED_HEAD, decided_result
from tests.unit.verify.helpers import outcome as _outcome
from verify_pr.models.compare import CompareVerdict
from verify_pr.verify.harness.names import harness_files, is_harness_path
from verify_pr.verify.trees.overlay import overlay_harness


@pytest.mark.parametrize(
    ("path", "harness"),
    [
        ("conftest.py", True),
        ("tests/deep/conftest.py", True),
        ("pytest.ini", True),
        ("pyproject.toml", True),
        ("setup.cfg", True),
        ("tox.ini", True),
        ("sitecustomize.py", True),
        ("lib/usercustomize.py", True),
        ("evil.pth", True),
        ("package.json", True),
        ("web/jest.config.ts", True),
        ("vitest.config.mts", True),
        ("vite.config.js", True),
        ("src/setupTests.ts", True),
        ("bunfig.toml", True),
        ("package-lock.json", True),
        ("yarn.lock", True),
        ("pnpm-lock.yaml", True),
        ("bun.lockb", True),
        ("poetry.lock", True),
        ("pytest.py", True),
        ("_pytest/x.py", True),
        ("node_modules/jest/index.js", True),
        ("calc.py", False),
        ("tests/test_calc.py", False),
        ("docs/conftest.md", False),
        ("README", False),
    ],
)
def test_harness_paths(path: str, harness: bool) -> None:
    assert is_harness_path(path) is harness


def test_harness_files_sorted_unique() -> None:
    assert harness_files(["b/conftest.py", "calc.py", "a.pth", "a.pth"]) == [
        "a.pth",
        "b/conftest.py",
    ]


def test_overlay_copies_base_and_deletes_head_only(tmp_path: Path) -> None:
    base, head = tmp_path / "base", tmp_path / "head"
    (base / "tests").mkdir(parents=True)
    (head / "tests").mkdir(parents=True)
    (base / "pytest.ini").write_text("[pytest]\n")
    (head / "pytest.ini").write_text("[pytest]\naddopts = -p evil\n")
    (head / "conftest.py").write_text("evil\n")
    (base / "tests" / "conftest.py").write_text("base\n")
    (head / "x").write_text("file where a dir should be\n")
    os.symlink("../../etc/passwd", head / "tests" / "conftest.py")
    overlay_harness(base, head, ["pytest.ini", "conftest.py", "tests/conftest.py", "x/conftest.py"])
    assert (head / "pytest.ini").read_text() == "[pytest]\n"
    assert not (head / "conftest.py").exists()
    assert not (head / "tests" / "conftest.py").is_symlink()
    assert (head / "tests" / "conftest.py").read_text() == "base\n"
    assert (head / "x").is_file()


@pytest.mark.parametrize("strict", [False, True])
def test_harness_notes_are_reasons_that_block_verified(strict: bool) -> None:
    note = "vendor/lib: a submodule the export leaves empty"
    base, head = _outcome(FIXED_BASE), _outcome(FIXED_HEAD)
    result = decided_result(base, head, strict=strict, notes=(note,))
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert note in result.reasons
    # positive control: the same runs without the note are VERIFIED
    plain = decided_result(base, head, strict=strict)
    assert plain.verdict is CompareVerdict.VERIFIED
