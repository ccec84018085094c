"""Harness pytest reaches past the name rule and the import closure (issue 33, class 4), end to
end on real containers: a plugin a test module names in ``pytest_plugins``, and a module the
tests import that a conftest star-imports, which the PR fills with report hooks.

Each attack fixes nothing and forces every test to pass on head (it was VERIFIED); each has its
honest twin in the same repository (the fix of calc.py stays VERIFIED)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.compare_helpers import (
    BUGGY,
    FIXED,
    FORCE_PASS_CONFTEST,
    IMAGE,
    TESTS,
    compare,
)
from verify_pr.models.compare import CompareResult, CompareVerdict

pytestmark = [pytest.mark.docker, pytest.mark.slow]

BENIGN = "HELPER = 1\n"
PLUGIN_TESTS = 'pytest_plugins = ["plug"]\n\n' + TESTS
# the tests import the helper too: product code by the closure's rule, until it holds hooks
STAR_TESTS = "from helper import HELPER\n\n" + TESTS + "\n\ndef test_helper():\n    assert HELPER\n"


def _run(tmp_path: Path, repo: Path, base: str, head: str) -> CompareResult:
    _code, result, _summary = compare(tmp_path, repo, "--base", base, "--head", head)
    return result


def _repo(
    tmp_path: Path, files: dict[str, str], heads: dict[str, dict[str, str]]
) -> dict[str, str]:
    repo = init_repo(tmp_path / "repo")
    shas = {"base": commit(repo, {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, **files}, "base")}
    for name, change in heads.items():
        checkout(repo, shas["base"])
        shas[name] = commit(repo, change, name)
    return shas


@pytest.mark.parametrize("head", ["fix", "trick"])
def test_a_plugin_a_test_module_names_is_harness(tmp_path: Path, head: str) -> None:
    """base's test module names ``plug`` in pytest_plugins (so the tamper signal is base's
    own, not new); the PR turns plug.py into a plugin that forces every test to pass."""
    require_docker(IMAGE)
    shas = _repo(
        tmp_path,
        {"test_calc.py": PLUGIN_TESTS, "plug.py": BENIGN},
        {"fix": {"calc.py": FIXED}, "trick": {"plug.py": BENIGN + FORCE_PASS_CONFTEST}},
    )
    result = _run(tmp_path, tmp_path / "repo", shas["base"], shas[head])
    if head == "fix":  # positive control: the plugin named from the test is no bar to a fix
        assert result.verdict is CompareVerdict.VERIFIED, result.reasons
        assert result.harness_files_changed == ()
        return
    assert result.counts.fail_to_pass == 1  # pytest loaded the plugin: the trick worked
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert result.harness_files_changed == ("plug.py",)
    assert any("test_calc.py names it in pytest_plugins" in r for r in result.reasons)


@pytest.mark.parametrize("head", ["fix", "trick", "fix_helper"])
def test_a_tested_module_a_conftest_star_imports_for_hooks_is_harness(
    tmp_path: Path, head: str
) -> None:
    """The conftest star-imports helper, which the tests import too; the PR adds report
    hooks to helper.py. The twins: the fix of calc.py, and a change to helper.py that adds
    no hook (still product code, no harness)."""
    require_docker(IMAGE)
    shas = _repo(
        tmp_path,
        {"test_calc.py": STAR_TESTS, "helper.py": BENIGN, "conftest.py": "from helper import *\n"},
        {
            "fix": {"calc.py": FIXED},
            "trick": {"helper.py": BENIGN + FORCE_PASS_CONFTEST},
            "fix_helper": {"calc.py": FIXED, "helper.py": "HELPER = 2\n"},
        },
    )
    result = _run(tmp_path, tmp_path / "repo", shas["base"], shas[head])
    if head != "trick":
        assert result.verdict is CompareVerdict.VERIFIED, result.reasons
        assert result.harness_files_changed == ()
        return
    assert result.counts.fail_to_pass == 1  # the hooks ran as the conftest's
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert result.harness_files_changed == ("helper.py",)
    assert any("helper.py judges the PR (conftest.py imports" in r for r in result.reasons)


# The same report hook, bound under a name computed at run time: no ``def pytest_...``, no
# ``@hookimpl`` line, no ``pytest_... =`` for the reader to find.
FORCE_PASS_BODY = (
    "import pytest\n\n\ndef _report(item, call):\n    outcome = yield\n"
    "    report = outcome.get_result()\n    report.outcome = 'passed'\n    report.longrepr = None\n\n\n"
    '_hook = getattr(pytest, "hook" + "impl")(hookwrapper=True)(_report)\n'
)
DYNAMIC = {
    # into the module's own namespace, which the conftest star-imports
    "globals": ("from helper import *\n", 'globals()["py" + "test_runtest_makereport"] = _hook\n'),
    # straight into the conftest's namespace, before pytest registers it
    "setattr": (
        "import helper  # noqa: F401\n",
        'import sys\n\nsetattr(sys.modules["conftest"], "py" + "test_runtest_makereport", _hook)\n',
    ),
}


@pytest.mark.parametrize("head", ["fix", "globals", "setattr"])
def test_a_hook_bound_under_a_computed_name_is_harness(tmp_path: Path, head: str) -> None:
    """base's conftest imports helper (the tests import it too: product code); the PR binds a
    report hook under a name computed at run time. A module a harness file imports that binds
    names dynamically is harness (fail closed). The honest twin: the fix of calc.py."""
    require_docker(IMAGE)
    conftest = DYNAMIC["globals" if head == "fix" else head][0]
    shas = _repo(
        tmp_path,
        {"test_calc.py": STAR_TESTS, "helper.py": BENIGN, "conftest.py": conftest},
        {
            head: {"calc.py": FIXED}
            if head == "fix"
            else {"helper.py": BENIGN + FORCE_PASS_BODY + DYNAMIC[head][1]}
        },
    )
    result = _run(tmp_path, tmp_path / "repo", shas["base"], shas[head])
    if head == "fix":
        assert result.verdict is CompareVerdict.VERIFIED, result.reasons
        assert result.harness_files_changed == ()
        return
    assert result.counts.fail_to_pass == 1  # the hook ran as the conftest's
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert result.harness_files_changed == ("helper.py",)
