"""A missing dependency is NOT PROVEN naming it, only when it is the run's only failure and the
tree holds no such module (issue 23, item 3). Each row breaks if its rule is dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.models.report import RedFlag, ReportFormat, TestCase, TestReport, TestStatus
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict
from verify_pr.reports.jest_json import LOAD_ERROR_NAME
from verify_pr.runners import _files
from verify_pr.verify.runs.missing_deps import MissingModule, missing_modules, module_named
from verify_pr.verify.runs.rules import judge


def collection_error(file: str = "test_dep.py") -> TestCase:
    """pytest's stand-in for a module that failed to import (its text is in the body)."""
    return TestCase.build(
        name=file.removesuffix(".py"),
        classname=None,
        file=file,
        line=None,
        status=TestStatus.ERROR,
        message="collection failure",
    )


def suite_failure(message: str, file: str = "dep.test.js") -> TestCase:
    """jest's/vitest's stand-in for a suite that failed before any test ran."""
    return TestCase.build(
        name=LOAD_ERROR_NAME,
        classname=None,
        file=file,
        line=None,
        status=TestStatus.ERROR,
        message=f"  ● Test suite failed to run\n\n    {message}\n",
    )


def passed(name: str = "test_fine") -> TestCase:
    return TestCase.build(
        name=name, classname="test_ok", file="test_ok.py", line=1, status=TestStatus.PASSED
    )


def failed() -> TestCase:
    return TestCase.build(
        name="test_real",
        classname="test_real",
        file="test_real.py",
        line=3,
        status=TestStatus.FAILED,
        message="assert 1 == 2",
    )


def report(*cases: TestCase) -> TestReport:
    return TestReport.build(
        format=ReportFormat.JUNIT, testcases=cases, red_flags=[RedFlag.COLLECTION_ERROR]
    )


def no_such(module: str) -> dict[str, str]:
    return {"test_dep.py": f"ModuleNotFoundError: No module named '{module}'"}


def tree_with(root: Path, *paths: str) -> Path:
    for rel in paths:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("/"):
            path.mkdir(exist_ok=True)
        else:
            path.write_text("")
    return root


# --- Python ---------------------------------------------------------------------------------


def test_a_module_nowhere_in_the_tree_is_named(tmp_path: Path) -> None:
    found = missing_modules(report(collection_error(), passed()), tmp_path, no_such("absent"))
    assert found == [MissingModule("test_dep.py", "absent")]


def test_a_submodule_of_a_package_the_tree_lacks_is_the_image_s(tmp_path: Path) -> None:
    found = missing_modules(report(collection_error()), tmp_path, no_such("yaml.cyaml"))
    assert found == [MissingModule("test_dep.py", "yaml.cyaml")]


@pytest.mark.parametrize(
    ("module", "held"),
    [
        pytest.param("absent", "absent.py", id="a-top-level-module"),
        pytest.param("absent", "tests/helpers/absent.py", id="a-module-at-any-depth"),
        pytest.param("absent", "src/absent/", id="a-package-directory"),
        pytest.param("mypkg.gone", "mypkg/__init__.py", id="a-submodule-of-the-tree-s-package"),
        pytest.param("native", "native.cpython-312-x86_64-linux-gnu.so", id="an-extension"),
    ],
)
def test_a_module_the_tree_holds_is_the_pr_s(tmp_path: Path, module: str, held: str) -> None:
    tree = tree_with(tmp_path, held)
    assert missing_modules(report(collection_error()), tree, no_such(module)) is None
    # positive control: the same report on an empty tree names the module
    empty = tmp_path / "empty"
    empty.mkdir()
    assert missing_modules(report(collection_error()), empty, no_such(module))


def test_a_real_failure_beside_a_missing_module_keeps_fail(tmp_path: Path) -> None:
    """The attack: hide an assertion failure behind another file's missing import."""
    cases = report(collection_error(), failed())
    assert missing_modules(cases, tmp_path, no_such("absent")) is None


def test_a_load_error_that_names_no_module_keeps_fail(tmp_path: Path) -> None:
    texts = {"test_dep.py": "SyntaxError: invalid syntax"}
    assert missing_modules(report(collection_error()), tmp_path, texts) is None
    # and without the report's body text there is nothing to name: FAIL
    assert missing_modules(report(collection_error()), tmp_path, {}) is None


def test_every_load_error_must_name_an_absent_module(tmp_path: Path) -> None:
    cases = report(collection_error(), collection_error("test_syntax.py"))
    texts = no_such("absent") | {"test_syntax.py": "SyntaxError: invalid syntax"}
    assert missing_modules(cases, tmp_path, texts) is None


def test_an_import_error_of_a_name_is_not_a_missing_module() -> None:
    assert module_named("ImportError: cannot import name 'x' from 'json'") is None
    assert module_named("E   ModuleNotFoundError: No module named 'attr'") == "attr"


def test_a_tree_too_large_to_walk_counts_as_holding_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tree_with(tmp_path, "a.py", "b.py", "c.py", "d.py")
    assert missing_modules(report(collection_error()), tree, no_such("absent"))
    monkeypatch.setattr(_files, "MAX_WALK_ENTRIES", 2)
    assert missing_modules(report(collection_error()), tree, no_such("absent")) is None


def test_no_tree_no_claim() -> None:
    assert missing_modules(report(collection_error()), None, no_such("absent")) is None


# --- Node -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "module"),
    [
        ("Cannot find module 'left-pad' from 'dep.test.js'", "left-pad"),
        ("Cannot find module '@acme/widget/sub' from 'dep.test.js'", "@acme/widget/sub"),
        ("Error: Cannot find package 'left-pad' imported from '/work/dep.test.js'", "left-pad"),
    ],
)
def test_a_package_the_tree_lacks_is_named(tmp_path: Path, message: str, module: str) -> None:
    found = missing_modules(report(suite_failure(message)), tmp_path)
    assert found == [MissingModule("dep.test.js", module)]


@pytest.mark.parametrize(
    "specifier", ["./gone", "../gone.js", "/work/gone", "#internal", "~/gone", "@/gone", "node:x"]
)
def test_a_relative_or_aliased_specifier_is_the_tree_s(tmp_path: Path, specifier: str) -> None:
    message = f"Cannot find module '{specifier}' from 'dep.test.js'"
    assert missing_modules(report(suite_failure(message)), tmp_path) is None


@pytest.mark.parametrize(
    "held",
    ["node_modules/left-pad/", "lib/left-pad.js", "packages/left-pad/", "package.json"],
)
def test_a_package_the_tree_holds_is_the_pr_s(tmp_path: Path, held: str) -> None:
    tree = tree_with(tmp_path, held)
    if held == "package.json":
        (tree / held).write_text('{"name": "left-pad"}')
    message = "Cannot find module 'left-pad' from 'dep.test.js'"
    assert missing_modules(report(suite_failure(message)), tree) is None


def test_a_test_that_ran_and_failed_on_a_missing_module_is_not_a_load_failure(
    tmp_path: Path,
) -> None:
    """An import inside a test body: the test ran and failed (FAIL), nothing was unloadable."""
    ran = TestCase.build(
        name="imports late",
        classname=None,
        file="dep.test.js",
        line=2,
        status=TestStatus.FAILED,
        message="Cannot find module 'left-pad' from 'dep.test.js'",
    )
    assert missing_modules(report(ran), tmp_path) is None


def test_vitest_s_junit_stand_in_counts(tmp_path: Path) -> None:
    stand_in = TestCase.build(
        name="dep.test.js",
        classname="dep.test.js",
        file="dep.test.js",
        line=None,
        status=TestStatus.FAILED,
        message="Cannot find package 'left-pad' imported from '/work/dep.test.js'",
    )
    assert missing_modules(report(stand_in), tmp_path) == [MissingModule("dep.test.js", "left-pad")]


# --- the verdict ----------------------------------------------------------------------------


def box(exit_code: int) -> SandboxResult:
    return SandboxResult(
        status=RunStatus.COMPLETED,
        exit_code=exit_code,
        output_truncated=False,
        detail="",
        image="img:1",
        timeout_s=60,
        report=ReportStatus.RETURNED,
    )


MISSING = [MissingModule("test_dep.py", "absent")]


def test_the_verdict_is_not_proven_naming_the_module() -> None:
    j = judge(box(2), b"", report(collection_error()), None, [], MISSING)
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons[0].startswith("the image lacks the module(s) 'absent': 1 test file(s)")
    assert "test_dep.py" in j.reasons[0]
    # positive control: without the finding, the same report is FAIL
    assert judge(box(2), b"", report(collection_error()), None, []).verdict is Verdict.FAIL


def test_a_runner_that_exited_0_over_load_failures_stays_fail() -> None:
    j = judge(box(0), b"", report(collection_error()), None, [], MISSING)
    assert j.verdict is Verdict.FAIL
    assert any("exited 0 despite failures" in r for r in j.reasons)


def test_tamper_reasons_stay_beside_not_proven() -> None:
    j = judge(box(2), b"", report(collection_error()), None, ["conftest.py"], MISSING)
    assert j.verdict is Verdict.NOT_PROVEN
    assert j.reasons[-1] == "the repo changes its own harness: conftest.py"
