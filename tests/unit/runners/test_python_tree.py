"""src layouts declared as data, the tree's packages, and reading the import probe's lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.runners.pytest.runner import PYTHON, PYTHON_IMAGE_CACHES, PytestRunner
from verify_pr.runners.pytest.tree import (
    outside_the_tree,
    probe_command,
    runner_modules_probe,
    src_layout,
    tree_packages,
)

REPORT = "/work/vpr-report-0123456789abcdef0123456789abcdef.xml"


def make(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


PKG = {"src/demo/__init__.py": ""}


@pytest.mark.parametrize(
    ("name", "text", "source"),
    [
        ("pyproject.toml", '[tool.setuptools.packages.find]\nwhere = ["src"]\n', "find] where"),
        ("pyproject.toml", '[tool.setuptools.package-dir]\n"" = "src"\n', "package-dir"),
        ("pyproject.toml", '[tool.hatch.build.targets.wheel]\npackages = ["src/demo"]\n', "hatch"),
        (
            "pyproject.toml",
            '[tool.poetry]\npackages = [{include = "demo", from = "src"}]\n',
            "poetry",
        ),
        ("pyproject.toml", '[project]\nname = "Demo"\n', "[project] name (src/demo/)"),
        ("setup.cfg", "[options]\npackage_dir =\n    =src\n", "setup.cfg [options] package_dir"),
        ("setup.cfg", "[options.packages.find]\nwhere = src\n", "setup.cfg [options.packages"),
        ("setup.py", 'setup(package_dir={"": "src"}, packages=find_packages("src"))\n', "setup.py"),
    ],
)
def test_declared_src_layouts(tmp_path: Path, name: str, text: str, source: str) -> None:
    found = src_layout(make(tmp_path, {**PKG, name: text}))
    assert found is not None and source in found


def test_no_src_layout_without_a_declaration_or_a_src_dir(tmp_path: Path) -> None:
    assert src_layout(make(tmp_path, PKG)) is None  # a src/ package alone is not declared
    other = make(tmp_path / "b", {"pyproject.toml": '[project]\nname = "other"\n', **PKG})
    assert src_layout(other) is None
    assert (
        src_layout(make(tmp_path / "c", {"setup.cfg": "[options]\npackage_dir = =src\n"})) is None
    )


def test_tree_packages_top_and_src_not_tests_not_links(tmp_path: Path) -> None:
    root = make(
        tmp_path,
        {
            "flat/__init__.py": "",
            "src/inner/__init__.py": "",
            "tests/__init__.py": "",
            "docs/conf.py": "",
            "bad-name/__init__.py": "",
        },
    )
    (root / "linked").symlink_to(root / "flat")
    assert tree_packages(root) == ["flat", "inner"]


def test_pytest_command_for_a_src_layout(tmp_path: Path) -> None:
    root = make(tmp_path, {**PKG, "pyproject.toml": '[project]\nname = "demo"\n'})
    command, probed = PytestRunner().command_for(REPORT, root)
    assert probed == ("demo",)
    startup, _, rest = command.partition("; ")
    # first the image's pytest names its startup modules, with nothing of the tree on the path
    # (so from the image's own caches)
    assert startup == runner_modules_probe(PYTHON_IMAGE_CACHES)
    assert startup.startswith("env -u PYTHONPATH ")
    probe, _, run = rest.partition("; ")
    # the probe runs under pytest's own interpreter flags (-P -s -B), so it sees its path
    assert probe.startswith(f"PYTHONPATH=/work/src {PYTHON} -c '") and '("demo",)' in probe
    # src/ is on the path from the interpreter's start: so is the pycache prefix
    assert run == "PYTHONPATH=/work/src " + PytestRunner().command(REPORT, PYTHON)
    assert run.startswith(f"PYTHONPATH=/work/src {PYTHON} -c '")


def test_pytest_command_without_packages_is_unchanged(tmp_path: Path) -> None:
    root = make(tmp_path, {"test_a.py": ""})
    assert PytestRunner().command_for(REPORT, root) == (PytestRunner().command(REPORT), ())


def test_probe_is_one_single_quoted_word() -> None:
    cmd = probe_command(["a", "b_c"])
    assert cmd.startswith("python3 -c '") and cmd.endswith("'") and cmd.count("'") == 2


def test_outside_the_tree() -> None:
    out = (
        b"verify-pr-probe: demo /work/src/demo/__init__.py\n"
        b"verify-pr-probe: other /usr/lib/python3/dist-packages/other/__init__.py\n"
        b"verify-pr-probe: gone -\n"
    )
    reasons = outside_the_tree(out, ["demo", "other", "gone", "silent"])
    assert len(reasons) == 2  # "gone" resolves nowhere: no copy from elsewhere
    assert "'other' from /usr/lib/python3/dist-packages/other/__init__.py" in reasons[0]
    assert "did not report" in reasons[1]
    assert outside_the_tree(out, ["demo"]) == []
    # a path that only starts like the tree is outside it
    assert outside_the_tree(b"verify-pr-probe: demo /workx/demo.py\n", ["demo"])
