"""A pytest test whose report names the file that defines it, not the module that collected it
(mistune 3.1.1: methods made in tests/__init__.py for each test module's class): its node id is
found from the classname against the trees it runs on, and refused whenever that is unsure."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from tests.unit.verify.helpers import outcome
from verify_pr.models.report import ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.runners.registry import runner_named
from verify_pr.verify.proof import rerun
from verify_pr.verify.runs.select import batch_selector, modules_in, pytest_node_id, selector
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan

PLAN = SuitePlan(
    runner_named("pytest"), "python3 -m pytest --junitxml=/tmp/r.xml", "/tmp/r.xml", "pytest"
)
RUBY = "tests.test_plugins.TestPlugin1_ruby"
RUBY_ID = "tests/test_plugins.py::TestPlugin1_ruby::test_ruby_splits_001"


def _shell(argv: tuple[str, ...] | None) -> str | None:
    """A selection as the shell sees it after the runner's command (``SuitePlan.command``)."""
    return None if argv is None else shlex.join(argv)


def _case(name: str, classname: str | None, file: str | None) -> TestCase:
    return TestCase.build(
        name=name, classname=classname, file=file, line=1, status=TestStatus.FAILED
    )


def _mistune(name: str = "test_ruby_splits_001", classname: str = RUBY) -> TestCase:
    return _case(name, classname, "tests/__init__.py")


def _tree(root: Path, *files: str) -> Path:
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return root


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    files = ("tests/__init__.py", "tests/test_plugins.py", "tests/test_hooks.py")
    return _tree(tmp_path / "before", *files), _tree(tmp_path / "after", *files)


def test_the_mistune_shape_resolves_to_the_collecting_module(trees: tuple[Path, Path]) -> None:
    is_module = modules_in(*trees)
    assert pytest_node_id(_mistune(), is_module) == RUBY_ID
    assert _shell(selector(runner_named("pytest"), _mistune(), is_module)) == RUBY_ID
    hook = _case("test_render_empty_toc", "tests.test_hooks.TestTocHook", "tests/__init__.py")
    assert _shell(batch_selector(runner_named("pytest"), [_mistune(), hook], is_module)) == (
        f"{RUBY_ID} tests/test_hooks.py::TestTocHook::test_render_empty_toc"
    )
    # the name is shell-quoted as any other: the report's text, one word
    evil = _mistune("t'; rm -rf / #")
    assert _shell(selector(runner_named("pytest"), evil, is_module)) == (
        "'tests/test_plugins.py::TestPlugin1_ruby::t'\"'\"'; rm -rf / #'"
    )
    # without the trees (or for a runner that is not pytest) nothing is resolved: as before
    assert pytest_node_id(_mistune()) is None
    assert _shell(selector(runner_named("pytest"), _mistune())) is None


def test_the_longest_prefix_that_is_a_module_wins(tmp_path: Path) -> None:
    tree = _tree(tmp_path, "tests/test_plugins.py", "tests/test_plugins/TestPlugin1_ruby.py")
    assert pytest_node_id(_mistune(), modules_in(tree)) == (
        "tests/test_plugins/TestPlugin1_ruby.py::test_ruby_splits_001"
    )


@pytest.mark.parametrize(
    "classname",
    [
        "other.test_plugins.TestPlugin1_ruby",  # no prefix names a module of the tree
        "tests.test_nothing.TestX",
        "tests..test_plugins.TestPlugin1_ruby",  # an empty part: no module's dotted name
        "tests/../tests.test_plugins.TestPlugin1_ruby",  # a path in a name
        "/work.tests.test_plugins.TestPlugin1_ruby",
        "tests\\x2ftest_plugins.TestPlugin1_ruby",  # clean_text's escape
        "-ptests.test_plugins.TestPlugin1_ruby",  # a word pytest would take for an option
    ],
)
def test_a_classname_that_names_no_module_of_the_tree_stays_unselectable(
    trees: tuple[Path, Path], classname: str
) -> None:
    _tree(trees[0], "-ptests/test_plugins.py")
    _tree(trees[1], "-ptests/test_plugins.py")
    is_module = modules_in(*trees)
    assert pytest_node_id(_mistune(classname=classname), is_module) is None
    assert (
        _shell(selector(runner_named("pytest"), _mistune(classname=classname), is_module)) is None
    )


def test_a_module_in_only_one_tree_stays_unselectable(tmp_path: Path) -> None:
    before = _tree(tmp_path / "before", "tests/__init__.py")
    after = _tree(tmp_path / "after", "tests/__init__.py", "tests/test_plugins.py")
    assert pytest_node_id(_mistune(), modules_in(before, after)) is None
    assert pytest_node_id(_mistune(), modules_in(after, before)) is None
    assert pytest_node_id(_mistune(), modules_in(after)) == RUBY_ID


def test_a_symlinked_module_or_folder_is_refused(tmp_path: Path) -> None:
    outside = _tree(tmp_path / "outside", "tests/test_plugins.py")
    linked_file = _tree(tmp_path / "file", "tests/__init__.py")
    os.symlink(outside / "tests/test_plugins.py", linked_file / "tests/test_plugins.py")
    linked_dir = tmp_path / "dir"
    linked_dir.mkdir()
    os.symlink(outside / "tests", linked_dir / "tests")
    inside = _tree(tmp_path / "inside", "tests/real.py")
    os.symlink("real.py", inside / "tests/test_plugins.py")  # a link within the tree too
    for tree in (linked_file, linked_dir, inside):
        assert pytest_node_id(_mistune(), modules_in(tree)) is None, tree
    # a folder named like the module is no module either
    folder = tmp_path / "folder"
    (folder / "tests/test_plugins.py").mkdir(parents=True)
    assert pytest_node_id(_mistune(), modules_in(folder)) is None


def test_modules_in_takes_only_plain_relative_paths(trees: tuple[Path, Path]) -> None:
    is_module = modules_in(*trees)
    assert is_module("tests/test_plugins.py")
    for rel in ("", "/etc/passwd", "../after/tests/test_plugins.py", "tests/\0.py", "tests"):
        assert not is_module(rel), rel


@pytest.mark.parametrize(
    ("case", "node"),
    [
        (_case("test_a[1-2]", "tests.test_x", "tests/test_x.py"), "tests/test_x.py::test_a[1-2]"),
        (
            _case("test_b", "tests.test_x.TestK.Inner", "tests/test_x.py"),
            "tests/test_x.py::TestK::Inner::test_b",
        ),
        (_case("", "tests.ini.a-b.ini", "tests/ini/a-b.ini"), "tests/ini/a-b.ini"),
        (_case("README.txt", "docs.README.txt", "docs/README.txt"), "docs/README.txt::README.txt"),
        (_case("test_c", None, "tests/test_x.py"), None),
        (_case("", "other.a-b.ini", "tests/a-b.ini"), None),  # not Python: never resolved
    ],
)
def test_cases_the_plain_rule_handles_are_unchanged(
    tmp_path: Path, case: TestCase, node: str | None
) -> None:
    # a tree where every prefix of every classname above is a module: the plain rule still wins
    tree = _tree(
        tmp_path,
        "tests.py",
        "tests/test_x.py",
        "tests/test_x/TestK.py",
        "tests/ini/a-b.py",
        "other.py",
        "other/a-b.py",
        "docs.py",
    )
    assert pytest_node_id(case, modules_in(tree)) == pytest_node_id(case) == node


def _report(cases: list[TestCase]) -> SuiteOutcome:
    """A re-run's outcome holding ``cases``."""
    base = outcome({})
    report = TestReport.build(format=ReportFormat.JUNIT, testcases=cases)
    return SuiteOutcome(base.verdict, base.run, report, ())


def _head(cases: list[TestCase]) -> SuiteOutcome:
    base = outcome({})
    verdict = base.verdict.model_copy(update={"testcases": tuple(cases)})
    return SuiteOutcome(verdict, base.run, None, ())


def _with(case: TestCase, status: TestStatus) -> TestCase:
    return TestCase.build(
        name=case.name, classname=case.classname, file=case.file, line=1, status=status
    )


def test_the_proofs_re_runs_select_the_resolved_id_on_both_trees(
    trees: tuple[Path, Path],
) -> None:
    passed = _with(_mistune(), TestStatus.PASSED)
    jobs: list[tuple[Path, SuitePlan]] = []

    def run_all(batch: list[tuple[Path, SuitePlan]]) -> list[SuiteOutcome]:
        jobs.extend(batch)
        return [_report([_mistune()]), _report([passed])]

    found = rerun.confirm(PLAN, *trees, _head([passed]), [passed.id], 1, run_all)
    assert found == rerun.Confirmation(True, (), (), (passed.id,))
    assert [tree for tree, _ in jobs] == list(trees)
    assert all(plan.command.endswith(f" {RUBY_ID}") for _, plan in jobs)


def test_a_resolved_id_whose_re_run_reports_another_test_is_unconfirmed(
    trees: tuple[Path, Path],
) -> None:
    # a forged classname sends the selector to another test: its results are not the case's
    forged = _with(_mistune(), TestStatus.PASSED)
    other = _case("test_ruby_splits_001", "tests.test_plugins.TestPlugin1_ruby", "tests/t.py")

    def run_all(batch: list[tuple[Path, SuitePlan]]) -> list[SuiteOutcome]:
        return [_report([other]), _report([_with(other, TestStatus.PASSED)])]

    found = rerun.confirm(PLAN, *trees, _head([forged]), [forged.id], 1, run_all)
    assert found == rerun.Confirmation(True, (), (forged.id,), (forged.id,))
