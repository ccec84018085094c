"""pytest's bootstrap removes the tree's bytecode caches and sets the pycache prefix before the
working directory goes on sys.path (``runners.pytest.command``): run here on a tree of our own
making, in a child interpreter started as the sandbox starts pytest's (no PR file runs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from verify_pr.runners.pytest.command import (
    PYCACHE_PREFIX,
    PYTEST_COLLECT_MAIN,
    PYTEST_MAIN,
    PYTHON_IMAGE_CACHES,
)
from verify_pr.runners.pytest.runner import PytestRunner

REPORT = "/work/r0123456789abcdef.xml"
# the part of pytest's bootstrap that runs before pytest.main, then what it left
_MAIN = PYTEST_MAIN.split("sys.exit(")[0]
_SHOW = (
    "print(json.dumps([sys.pycache_prefix, sys.path[0], "
    "sorted(str(p.relative_to(os.getcwd())) for p in pathlib.Path(os.getcwd()).rglob('*'))]))"
)


def _bootstrap(tree: Path) -> list[object]:
    code = f"import json, pathlib; {_MAIN}{_SHOW}"
    done = subprocess.run(
        [sys.executable, "-P", "-s", "-B", "-c", code],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_tree_caches_go_and_the_prefix_comes_before_the_tree(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "pkg" / "__pycache__").mkdir(parents=True)
    (tree / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"x")
    (tree / "pkg" / "mod.py").write_text("")
    (tree / "__pycache__").mkdir()  # at the top too
    (tree / "deep" / "er").mkdir(parents=True)
    (tree / "deep" / "er" / "__pycache__").write_text("a file by that name")
    (tree / "store").mkdir()
    (tree / "store" / "keep.pyc").write_bytes(b"x")  # outside any __pycache__: not a cache
    (tree / "linked").mkdir()
    (tree / "linked" / "__pycache__").symlink_to(tree / "store")
    outside = tmp_path / "outside"
    (outside / "__pycache__").mkdir(parents=True)
    (tree / "out").symlink_to(outside)  # never followed
    prefix, first, left = _bootstrap(tree)
    assert prefix == PYCACHE_PREFIX
    assert first == str(tree)
    assert left == [
        "deep",
        "deep/er",
        "linked",
        "out",
        "pkg",
        "pkg/mod.py",
        "store",
        "store/keep.pyc",
    ]
    assert (outside / "__pycache__").is_dir()


def test_a_tree_without_caches_is_left_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b.py").write_text("")
    assert _bootstrap(tmp_path)[2] == ["a", "a/b.py"]


def test_the_collection_clears_the_caches_as_the_run_does() -> None:
    tail = PYTEST_MAIN.split("import shutil;")[1].split("sys.exit(")[0]
    assert tail in PYTEST_COLLECT_MAIN


def test_a_flat_tree_starts_from_the_image_caches(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("")
    command, _ = PytestRunner().command_for(REPORT, tmp_path)
    assert command.startswith(f"{PYTHON_IMAGE_CACHES} -c '")
    assert "pycache_prefix" not in command.split(" -c ")[0]
