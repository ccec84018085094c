"""setup.py naming its distribution through its own package's attribute (sortedcontainers:
``name=sortedcontainers.__title__``): the testpaths entry that is that package holds code."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.runners.registry import runner_named
from verify_pr.verify.split.setup_name import from_package
from verify_pr.verify.split.testpaths import rule_for

TOX = "[pytest]\naddopts = --doctest-modules\ntestpaths = docs sortedcontainers tests\n"
TITLE = "__title__ = 'sortedcontainers'\n__version__ = '2.2.2'\n"
SETUP = "from setuptools import setup\nimport sortedcontainers\n\nsetup(name=sortedcontainers.__title__)\n"


def _tree(tmp_path: Path, setup_py: str, init: str = TITLE, where: str = "") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "tox.ini").write_text(TOX)
    (tmp_path / "setup.py").write_text(setup_py)
    package = tmp_path / where / "sortedcontainers"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(init)
    return tmp_path


@pytest.mark.parametrize(
    "setup_py",
    [
        SETUP,  # sortedcontainers 2.2
        "import setuptools\nimport sortedcontainers as sc\nsetuptools.setup(name=sc.__title__)\n",
        "from setuptools import setup\nfrom sortedcontainers import __title__\nsetup(name=__title__)\n",
    ],
)
def test_the_packages_own_title_names_it(tmp_path: Path, setup_py: str) -> None:
    rule = rule_for(_tree(tmp_path, setup_py), runner_named("pytest"))
    assert rule.is_code("sortedcontainers/sortedlist.py")
    assert rule.is_test("tests/test_coverage_sortedlist.py")
    assert rule.is_test("sortedcontainers/test_inside.py")  # names still decide inside
    assert "not the packages sortedcontainers" in rule.describe()


@pytest.mark.parametrize(
    ("setup_py", "init"),
    [
        # the title is not the package's own name: another package's, or a project name
        (SETUP, "__title__ = 'other'\n"),
        # not one literal: a format, assigned twice, an annotation only, absent
        (SETUP, "__title__ = 'sorted' + 'containers'\n"),
        (SETUP, "__title__ = 'sortedcontainers'\n__title__ = 'sortedcontainers'\n"),
        (SETUP, "__version__ = '1'\n"),
        (SETUP, "def f(:\n"),
        # setup.py does not import the package, or names something else of it
        ("from setuptools import setup\nsetup(name=sortedcontainers.__title__)\n", TITLE),
        ("import sortedcontainers.sub\nsetup(name=sortedcontainers.__title__)\n", TITLE),
        ("import sortedcontainers\nsetup(name=sortedcontainers.__title__.lower())\n", TITLE),
        (
            "import sortedcontainers\nsetup(name=sortedcontainers.__title__)\nsetup(name='x')\n",
            TITLE,
        ),
        ("from sortedcontainers import __title__\nother(name=__title__)\n", TITLE),
    ],
)
def test_anything_else_keeps_the_entry_a_folder_of_tests(
    tmp_path: Path, setup_py: str, init: str
) -> None:
    rule = rule_for(_tree(tmp_path, setup_py, init), runner_named("pytest"))
    assert rule.is_test("sortedcontainers/sortedlist.py")


def test_a_src_layout_package_and_a_missing_or_doubled_one(tmp_path: Path) -> None:
    assert from_package(_tree(tmp_path / "a", SETUP, where="src"), SETUP) == "sortedcontainers"
    assert from_package(tmp_path / "missing", SETUP) is None
    both = _tree(tmp_path / "b", SETUP, where="src")
    (both / "sortedcontainers").mkdir()
    (both / "sortedcontainers" / "__init__.py").write_text(TITLE)
    assert from_package(both, SETUP) is None  # which one the import finds is not read here
    assert from_package(both, None) is None
