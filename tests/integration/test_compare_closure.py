"""Harness beyond names, end to end on real containers: a helper that base's conftest imports,
a conftest that is a symlink, a renamed conftest, a plugin a distribution's entry_points.txt
names in its pytest11 group (its other groups, like Markdown's extensions, name product code),
and a submodule the export leaves empty.

Each trick turns the failing test green on head without fixing the code; each has its
positive control (the honest fix in the same repo is VERIFIED)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, git, init_repo
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

# base's conftest takes its hooks from a helper module (code, not a test path)
IMPORTING_CONFTEST = "from helper import *  # noqa: F403\n"
BENIGN_HELPER = "HELPER = 1\n"
BENIGN_CONFTEST = "".join(
    f"import pytest\n\n\n@pytest.fixture\ndef value_{i}():\n    return {i}\n\n\n" for i in range(8)
)
# the new conftest reaches the renamed file by a name no static scan can read
DYNAMIC_CONFTEST = (
    "import importlib\n\nglobals().update(vars(importlib.import_module('plug' + 'ins')))\n"
)


@dataclass
class Repo:
    path: Path
    base: str
    fix: str  # the honest fix of calc.py
    trick: str  # only the helper changed: it forces every test to pass
    fix_and_trick: str  # the fix, and the helper trick too


@pytest.fixture(scope="module")
def closure_repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    require_docker(IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("closure") / "repo")
    files = {
        "pytest.ini": "[pytest]\n",
        "calc.py": BUGGY,
        "test_calc.py": TESTS,
        "conftest.py": IMPORTING_CONFTEST,
        "helper.py": BENIGN_HELPER,
    }
    base = commit(repo, files, "base")
    heads = {}
    for name, change in (
        ("fix", {"calc.py": FIXED}),
        ("trick", {"helper.py": FORCE_PASS_CONFTEST}),
        ("fix_and_trick", {"calc.py": FIXED, "helper.py": FORCE_PASS_CONFTEST}),
    ):
        checkout(repo, base)
        heads[name] = commit(repo, change, name)
    return Repo(repo, base, **heads)


def run(tmp_path: Path, repo: Path, base: str, head: str, strict: bool) -> CompareResult:
    args = ["--base", base, "--head", head, *(["--strict-harness"] if strict else [])]
    _code, result, _summary = compare(tmp_path, repo, *args)
    return result


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict-harness"])
def test_honest_fix_is_verified(closure_repo: Repo, tmp_path: Path, strict: bool) -> None:
    """Positive control: the conftest importing a helper does not stop an honest fix."""
    result = run(tmp_path, closure_repo.path, closure_repo.base, closure_repo.fix, strict)
    assert result.verdict is CompareVerdict.VERIFIED, result.reasons
    assert result.harness_files_changed == ()


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict-harness"])
def test_helper_imported_by_base_conftest_is_harness(
    closure_repo: Repo, tmp_path: Path, strict: bool
) -> None:
    result = run(tmp_path, closure_repo.path, closure_repo.base, closure_repo.trick, strict)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert result.harness_files_changed == ("helper.py",)
    if strict:
        # base's helper ran under head: the trick is gone and the bug shows
        assert result.counts.fail_to_pass == 0
        assert any("no test fails on base" in r for r in result.reasons)
    else:
        assert result.counts.fail_to_pass == 1  # the trick worked: only the closure stops it
        assert any("helper.py judges the PR (conftest.py imports" in r for r in result.reasons)


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict-harness"])
def test_fix_with_helper_trick_stands_on_its_own_only_under_strict(
    closure_repo: Repo, tmp_path: Path, strict: bool
) -> None:
    result = run(tmp_path, closure_repo.path, closure_repo.base, closure_repo.fix_and_trick, strict)
    assert result.harness_files_changed == ("helper.py",)
    if strict:
        assert result.verdict is CompareVerdict.VERIFIED, result.reasons
    else:
        assert result.verdict is CompareVerdict.NOT_PROVEN
        assert any("helper.py" in r for r in result.reasons)


def test_symlinked_conftest_target_is_harness(tmp_path: Path) -> None:
    require_docker(IMAGE)
    repo = init_repo(tmp_path / "repo")
    (repo / "support").mkdir()
    (repo / "conftest.py").symlink_to("support/hooks.py")
    files = {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "test_calc.py": TESTS}
    base = commit(repo, {**files, "support/hooks.py": BENIGN_HELPER}, "base")
    trick = commit(repo, {"support/hooks.py": FORCE_PASS_CONFTEST}, "trick")
    result = run(tmp_path, repo, base, trick, strict=False)
    assert result.counts.fail_to_pass == 1  # the trick works through the link
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert result.harness_files_changed == ("support/hooks.py",)
    assert any("the harness file conftest.py links to it" in r for r in result.reasons)
    strict = run(tmp_path / "strict", repo, base, trick, strict=True)
    assert strict.verdict is CompareVerdict.NOT_PROVEN
    assert strict.counts.fail_to_pass == 0


def test_renamed_conftest_is_harness(tmp_path: Path) -> None:
    require_docker(IMAGE)
    repo = init_repo(tmp_path / "repo")
    files = {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "test_calc.py": TESTS}
    base = commit(repo, {**files, "conftest.py": BENIGN_CONFTEST}, "base")
    git(repo, "mv", "conftest.py", "plugins.py")
    trick = commit(
        repo,
        {"plugins.py": BENIGN_CONFTEST + FORCE_PASS_CONFTEST, "conftest.py": DYNAMIC_CONFTEST},
        "rename",
    )
    result = run(tmp_path, repo, base, trick, strict=False)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert result.harness_files_changed == ("conftest.py", "plugins.py")
    assert any("plugins.py judges the PR (renamed from conftest.py" in r for r in result.reasons)
    strict = run(tmp_path / "strict", repo, base, trick, strict=True)
    assert strict.verdict is CompareVerdict.NOT_PROVEN
    assert strict.counts.fail_to_pass == 0


def test_empty_submodule_is_a_reason(tmp_path: Path) -> None:
    require_docker(IMAGE)
    repo = init_repo(tmp_path / "repo")
    files = {"pytest.ini": "[pytest]\n", "calc.py": BUGGY, "test_calc.py": TESTS}
    base_plain = commit(repo, files, "base")
    fix_plain = commit(repo, {"calc.py": FIXED}, "fix")
    control = run(tmp_path / "control", repo, base_plain, fix_plain, strict=False)
    assert control.verdict is CompareVerdict.VERIFIED, control.reasons  # positive control
    checkout(repo, base_plain)
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{base_plain},vendor/lib")
    git(repo, "commit", "--quiet", "-m", "add a submodule")
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "calc.py").write_text(FIXED)
    git(repo, "add", "calc.py")
    git(repo, "commit", "--quiet", "-m", "fix")
    fix = git(repo, "rev-parse", "HEAD").strip()
    for strict in (False, True):
        result = run(tmp_path / str(strict), repo, base, fix, strict)
        assert result.verdict is CompareVerdict.NOT_PROVEN
        assert result.counts.fail_to_pass == 1
        assert any("submodule" in r and "vendor/lib" in r for r in result.reasons)


# calc's add comes from an extension module it loads by name, as Markdown loads its extensions;
# the tree holds calc's installed metadata, whose entry points name that extension (a group
# pytest never loads) and a pytest plugin (pytest11, which pytest loads on its own)
EXT_CALC = (
    "import importlib\n\n\ndef add(a, b):\n"
    '    return importlib.import_module("ext").add(a, b)\n\n\n'
    "def mul(a, b):\n    return a * b\n"
)
DIST_FILES = {
    "calc-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: calc\nVersion: 1.0\n",
    "calc-1.0.dist-info/entry_points.txt": "[calc.extensions]\next = ext\n\n[pytest11]\nplug = plug\n",
}


def _dist_repo(tmp_path: Path) -> tuple[Path, str]:
    repo = init_repo(tmp_path / "repo")
    files = {
        "pytest.ini": "[pytest]\n",
        "calc.py": EXT_CALC,
        "ext.py": "def add(a, b):\n    return a - b\n",
        "plug.py": BENIGN_HELPER,
        "test_calc.py": TESTS,
        **DIST_FILES,
    }
    return repo, commit(repo, files, "base")


def test_an_extension_entry_point_names_code_not_harness(tmp_path: Path) -> None:
    """The honest fix of a module only the calc.extensions group names is VERIFIED (it was
    NOT PROVEN: every group's modules counted as pytest plugins, so ext.py judged the PR)."""
    require_docker(IMAGE)
    repo, base = _dist_repo(tmp_path)
    fix = commit(repo, {"ext.py": "def add(a, b):\n    return a + b\n"}, "fix")
    result = run(tmp_path, repo, base, fix, strict=False)
    assert result.verdict is CompareVerdict.VERIFIED, result.reasons
    assert result.harness_files_changed == ()


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict-harness"])
def test_a_pytest11_entry_point_plugin_is_harness(tmp_path: Path, strict: bool) -> None:
    """The attack twin in the same tree: the PR turns the plugin the pytest11 group names
    into one that forces every test to pass, and fixes nothing."""
    require_docker(IMAGE)
    repo, base = _dist_repo(tmp_path)
    trick = commit(repo, {"plug.py": FORCE_PASS_CONFTEST}, "trick")
    result = run(tmp_path, repo, base, trick, strict)
    assert result.verdict is CompareVerdict.NOT_PROVEN
    assert result.harness_files_changed == ("plug.py",)
    if strict:
        assert result.counts.fail_to_pass == 0  # base's plugin ran under head
    else:
        assert result.counts.fail_to_pass == 1  # pytest loaded the plugin: the trick worked
        assert any("plug.py judges the PR" in r for r in result.reasons)
