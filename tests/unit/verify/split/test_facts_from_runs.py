"""The verdict's facts from the runs: what is code, where the reports place tests, and which
FAIL_TO_PASS tests can prove a fix (issue 21's classes, each with its honest twin)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.verify.helpers import decided_result
from verify_pr.models.compare import Transition
from verify_pr.models.listing import LISTING_FILES, decode
from verify_pr.models.report import ReportFormat, TestCase, TestReport, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.runners.registry import runner_named
from verify_pr.sandbox.run import SandboxRun
from verify_pr.verify.decision import decide as cmp
from verify_pr.verify.pairing.pairing import pair
from verify_pr.verify.runs.suite import SuiteOutcome
from verify_pr.verify.split.placed import late_tests, placed_files, resolve
from verify_pr.verify.split.testpaths import rule_for, split

P, F, E = TestStatus.PASSED, TestStatus.FAILED, TestStatus.ERROR
BASE_SHA, HEAD_SHA = "a" * 40, "b" * 40


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("calc.py", "code"),
        ("src/pkg/core.py", "code"),
        ("tests/test_calc.py", "test"),
        ("tests/data/expected.txt", "test"),
        ("test_doc.txt", "shared"),  # pytest's default doctest glob: never code
        ("pkg/data/rules.json", "shared"),  # data the code reads: the PR's on both sides
        ("README.md", "shared"),
        ("pyproject.toml", "shared"),
    ],
)
def test_a_path_is_code_only_when_known_to_be_code(tmp_path: Path, path: str, kind: str) -> None:
    rule = rule_for(tmp_path, runner_named("pytest"), [path])
    _shared, code = split([path], rule)
    assert (code == [path]) is (kind == "code")
    assert rule.is_test(path) is (kind == "test")


def test_a_package_testing_folder_is_code_and_a_top_level_one_is_tests(tmp_path: Path) -> None:
    """A ``testing`` subpackage the product imports is code (numpy's); one only the tests
    import is their support (issue 33, class 2)."""
    (tmp_path / "mypkg" / "testing").mkdir(parents=True)
    (tmp_path / "mypkg" / "__init__.py").write_text("from mypkg import testing\n")
    (tmp_path / "mypkg" / "testing" / "__init__.py").write_text("")
    (tmp_path / "testing").mkdir()
    paths = ["mypkg/testing/utils.py", "testing/test_x.py", "testing/helpers.py"]
    rule = rule_for(tmp_path, runner_named("pytest"), paths)
    assert split(paths, rule) == (["testing/helpers.py", "testing/test_x.py"], paths[:1])
    # nothing of the product imports it: the tests' support
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    assert rule_for(tmp_path, runner_named("pytest"), paths).is_test("mypkg/testing/utils.py")
    # positive control: without the package's __init__.py it is a test folder again
    (tmp_path / "mypkg" / "__init__.py").unlink()
    rule = rule_for(tmp_path, runner_named("pytest"), paths)
    assert rule.is_test("mypkg/testing/utils.py")


def _case(name: str, file: str, status: TestStatus) -> TestCase:
    return TestCase.build(name=name, classname=None, file=file, line=1, status=status)


def _outcome(cases: list[TestCase]) -> SuiteOutcome:
    report = TestReport.build(format=ReportFormat.JUNIT, testcases=cases)
    failing = any(c.status in (F, E) for c in cases)
    sandbox = SandboxResult(
        status=RunStatus.COMPLETED,
        exit_code=1 if failing else 0,
        output_truncated=False,
        detail="",
        image="img",
        timeout_s=60,
        report=ReportStatus.RETURNED,
    )
    verdict = VerdictFile(
        verdict=Verdict.FAIL if failing else Verdict.PASS,
        reasons=("r",),
        runner="pytest",
        runner_version=None,
        command="python3 -m pytest",
        totals=report.totals,
        testcases=report.testcases,
        sandbox=sandbox,
    )
    return SuiteOutcome(verdict, SandboxRun(sandbox, b"", None), report)


def test_reports_move_a_new_file_to_the_test_side_and_mark_base_code_mixed(
    tmp_path: Path,
) -> None:
    (tmp_path / "mod.py").write_text("def f():\n    '''>>> f()\n    1'''\n")
    head = _outcome([_case("mod.f", "mod.py", P), _case("t", "checks.py", P)])
    placed = placed_files([head, None], [tmp_path])
    late = late_tests(["mod.py", "checks.py", "other.py"], placed, tmp_path, runner_named("pytest"))
    assert (late.moved, late.mixed) == (("checks.py",), ("mod.py",))
    # jest runs tests only from test files: an existing file with tests is a test file
    jest = late_tests(["mod.py", "checks.py"], placed, tmp_path, runner_named("jest"))
    assert (jest.moved, jest.mixed) == (("mod.py", "checks.py"), ())


def test_a_test_module_linked_to_a_code_file_places_tests_in_the_code_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text("def test_x():\n    pass\n")
    (tmp_path / "tests").mkdir()
    os.symlink("../pkg/core.py", tmp_path / "tests" / "test_core.py")
    assert resolve(tmp_path, "tests/test_core.py") == "pkg/core.py"
    assert resolve(tmp_path, "pkg/core.py") is None  # not a link: nothing to add
    head = _outcome([_case("test_x", "tests/test_core.py", P)])
    placed = placed_files([head], [tmp_path])
    assert placed == {"tests/test_core.py", "pkg/core.py"}
    assert late_tests(["pkg/core.py"], placed, tmp_path, runner_named("pytest")).mixed == (
        "pkg/core.py",
    )


def _build(
    before: SuiteOutcome, head: SuiteOutcome, own: SuiteOutcome | None = None, **ev: object
) -> cmp.CompareResult:
    return decided_result(before, head, base_own=own, **ev)


def test_tests_in_a_mixed_file_prove_nothing_and_the_honest_twin_does() -> None:
    before = _outcome([_case("mod.f", "mod.py", F), _case("t", "tests/test_m.py", P)])
    head = _outcome([_case("mod.f", "mod.py", P), _case("t", "tests/test_m.py", P)])
    mixed = _build(before, head, mixed=("mod.py",))
    assert mixed.verdict == "NOT_PROVEN"
    assert any("none in its own right" in r and "mod.py" in r for r in mixed.reasons)
    assert mixed.proofs == ()
    honest = _build(before, head)  # the same runs with mod.py a plain test file
    assert honest.verdict == "VERIFIED", honest.reasons


def test_an_untouched_test_of_a_file_that_fails_to_load_on_base_proves_nothing() -> None:
    # the PR adds an import of new code to an existing test file, and one new test
    stand_in = TestCase.build(
        name="tests.test_m", classname=None, file="tests/test_m.py", line=None, status=E
    )
    before = _outcome([stand_in])
    head = _outcome([_case("old", "tests/test_m.py", P), _case("new", "tests/test_m.py", P)])
    own = _outcome([_case("old", "tests/test_m.py", P)])
    result = _build(before, head, own)
    assert result.verdict == "VERIFIED", result.reasons
    assert [p.id for p in result.proofs] == ["tests/test_m.py::::new"]
    # the attack: only old tests, whose file the PR made unloadable on base's code
    head_old = _outcome([_case("old", "tests/test_m.py", P)])
    attack = _build(before, head_old, own)
    assert attack.verdict == "NOT_PROVEN"
    assert any("only its file failed to load" in r for r in attack.reasons), attack.reasons


def test_a_test_of_base_that_errors_in_setup_with_the_prs_tests_proves_nothing() -> None:
    own = _outcome([_case("old", "tests/test_m.py", P)])
    before = _outcome([_case("old", "tests/test_m.py", E)])  # an autouse guard the PR added
    head = _outcome([_case("old", "tests/test_m.py", P)])
    attack = _build(before, head, own)
    assert attack.verdict == "NOT_PROVEN"
    assert any("errored outside its own body" in r for r in attack.reasons), attack.reasons
    # the honest twin: the PR's version of the test fails in its own body on base's code
    failing = _outcome([_case("old", "tests/test_m.py", F)])
    assert _build(failing, head, own).verdict == "VERIFIED"


def _capped(full: SuiteOutcome, keep: int) -> SuiteOutcome:
    """``full`` with a verdict file that lists only its first ``keep`` testcases."""
    kept = full.verdict.testcases[:keep]
    listed = full.verdict.model_copy(update={"testcases": kept, "totals": Totals.count(kept)})
    return SuiteOutcome(listed, full.run, full.report)


def test_a_side_wider_than_its_result_file_is_paired_whole_from_its_report() -> None:
    """Issue 36: the listing carries every result of a run the verdict file cuts short."""
    cases = [_case(f"t{i}", "tests/test_m.py", P) for i in range(3)]
    before = _outcome([_case("t0", "tests/test_m.py", F), *cases[1:]])
    paired = pair(before, _capped(_outcome(cases), 2))
    result = decided_result(before, _capped(_outcome(cases), 2))
    assert result.verdict == "VERIFIED", result.reasons
    assert paired.listings is not None
    assert decode(paired.listings[LISTING_FILES["head"]]) == dict.fromkeys((c.id for c in cases), P)
    # the result lists all but PASS_TO_PASS; its counts count every id
    assert [t.transition for t in result.transitions] == [Transition.FAIL_TO_PASS]
    assert result.counts.pass_to_pass == 2
    # the attack: a failure of head that its verdict file leaves out still regresses
    broken = _outcome([*cases[:2], _case("t2", "tests/test_m.py", F)])
    attack = decided_result(before, _capped(broken, 2))
    assert attack.verdict == "NOT_PROVEN"
    assert any("pass on base and fail on head" in r for r in attack.reasons), attack.reasons
    # a side whose listing disagrees with its verdict file (a worse duplicate left out)
    twice = _outcome([*cases, _case("t1", "tests/test_m.py", F)])
    kept = (*twice.verdict.testcases[:3],)
    odd = SuiteOutcome(
        twice.verdict.model_copy(update={"testcases": kept, "totals": Totals.count(kept)}),
        twice.run,
        twice.report,
    )
    apart = decided_result(before, odd)
    assert apart.verdict == "NOT_PROVEN"
    assert any("cannot be paired whole" in r for r in apart.reasons), apart.reasons
    # a run within its verdict file carries no listing
    assert pair(before, _outcome(cases)).listings is None


def test_a_tamper_signal_is_new_against_base_s_own_tree_not_before() -> None:
    before = _outcome([_case("t", "tests/test_m.py", F)])
    head = _outcome([_case("t", "tests/test_m.py", P)])
    signal = "1 conftest.py file(s) (tests/conftest.py) run inside pytest"
    before = SuiteOutcome(before.verdict, before.run, before.report, (signal,))
    head = SuiteOutcome(head.verdict, head.run, head.report, (signal,))
    # the before tree holds the PR's tests, so its signals hide the PR's new conftest
    assert _build(before, head).verdict == "VERIFIED"
    result = _build(before, head, base_tamper=())
    assert result.verdict == "NOT_PROVEN"
    assert any("tamper" in r for r in result.reasons)
    assert _build(before, head, base_tamper=(signal,)).verdict == "VERIFIED"


@pytest.mark.parametrize(
    ("path", "harness"),
    [
        (".pytest.ini", True),
        ("pkg/.babelrc", True),
        ("web/.babelrc.json", True),
        ("babel.config.cjs", True),
        ("evil-1.0.dist-info/entry_points.txt", True),
        ("src/evil.egg-info/entry_points.txt", True),
        ("parse.egg-info/PKG-INFO", False),  # every sdist release changes it; loads nothing
        ("docs/entry_points.txt", False),
        ("pkg/core.py", False),  # the positive control: product code is not harness
        ("docs/dist-info.md", False),
    ],
)
def test_what_the_runner_loads_on_its_own_is_harness(path: str, harness: bool) -> None:
    from verify_pr.verify.harness.names import is_harness_path

    assert is_harness_path(path) is harness


def test_two_errors_in_one_pytest_testcase_match_the_declared_totals() -> None:
    from verify_pr.models.report import RedFlag
    from verify_pr.reports.junit import JunitDialect, parse_junit

    # pytest --doctest-modules over a test module that cannot import: one testcase, two
    # <error> elements, errors="2" (measured with pytest 7.2 in the python image)
    two = (
        '<testsuites><testsuite name="pytest" errors="2" failures="0" skipped="0" tests="3">'
        '<testcase classname="" name="tests.test_m" file="tests/test_m.py">'
        '<error message="collection failure">a</error><error message="collection failure">b'
        '</error></testcase><testcase classname="m" name="t" file="m.py" line="1"/>'
        "</testsuite></testsuites>"
    )
    report = parse_junit(two.encode(), dialect=JunitDialect.PYTEST)
    assert RedFlag.TOTALS_MISMATCH not in report.red_flags
    # positive control: one error element against errors="2" still hides a result
    one = two.replace('<error message="collection failure">b</error>', "")
    assert (
        RedFlag.TOTALS_MISMATCH in parse_junit(one.encode(), dialect=JunitDialect.PYTEST).red_flags
    )


def test_the_runner_s_startup_modules_come_from_the_run(tmp_path: Path) -> None:
    from verify_pr.runners.pytest.tree import RUNNER_MODULES_TAG, runner_modules, runtime_shadows

    (tmp_path / "pyproject.toml").write_text('[tool.setuptools.packages.find]\nwhere = ["src"]\n')
    (tmp_path / "src" / "attr").mkdir(parents=True)
    (tmp_path / "src" / "mypkg").mkdir()
    output = f"{RUNNER_MODULES_TAG} _pytest attr json pytest\nlater {RUNNER_MODULES_TAG} mypkg\n"
    names = runner_modules(output.encode())
    assert names == frozenset({"_pytest", "attr", "json", "pytest"})  # the first line only
    (signal,) = runtime_shadows(tmp_path, names)
    assert "src/attr" in signal and "'attr'" in signal
    # positive control: nothing of the tree is named so once src/attr is gone
    (tmp_path / "src" / "attr").rmdir()
    assert runtime_shadows(tmp_path, names) == []
    # no report from the probe: fail closed with a signal
    assert runtime_shadows(tmp_path, runner_modules(b"no probe ran")) != []
    # a root layout has no src/ on the path at startup: nothing to check
    (tmp_path / "pyproject.toml").unlink()
    assert runtime_shadows(tmp_path, None) == []


def test_the_test_rule_reads_the_config_pytest_reads_first(tmp_path: Path) -> None:
    # one reader of pytest's config (runners/pytest/ini.py) serves the runner and the rule
    (tmp_path / ".pytest.ini").write_text("[pytest]\npython_files = check_*.py\n")
    (tmp_path / "tox.ini").write_text("[pytest]\npython_files = other_*.py\n")
    rule = rule_for(tmp_path, runner_named("pytest"))
    assert rule.source == ".pytest.ini" and rule.is_test("check_x.py")
    assert not rule.is_test("other_x.py")


def test_a_folder_with_python_only_in_subpackages_is_probed(tmp_path: Path) -> None:
    """A package the PR turns into a namespace package (its __init__.py deleted), with its
    modules only in subpackages: the probe asks where it resolves (issue 33)."""
    from verify_pr.runners.pytest.tree import tree_modules

    (tmp_path / "attrs" / "impl").mkdir(parents=True)
    (tmp_path / "attrs" / "impl" / "core.py").write_text("")
    (tmp_path / "data" / "deep").mkdir(parents=True)
    (tmp_path / "data" / "deep" / "x.json").write_text("{}")
    assert tree_modules(tmp_path) == ["attrs"]
