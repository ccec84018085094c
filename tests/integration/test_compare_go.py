"""Issue 38 part 2: `verify-pr compare` on a Go module, in verify-pr-go:local on the real daemon.

One small module (package calc: Add is wrong on base) and a PR per case: a fix with a new test
(VERIFIED, the new test exactly its proof), a fix proven by one subtest of a table test
(VERIFIED by the subtest's id), a PR that fixes nothing (NOT PROVEN), and a new test file that
uses a function only head has, so its package does not build on base's code (the load failure
is the new test's failure on base; the package's other tests passed in base's own run and are
no proof)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.go_helpers import (
    ADD_TEST,
    CALC_BUGGY,
    CALC_FIXED,
    GO_IMAGE,
    GO_MOD,
    MUL_TEST,
)
from tests.integration.helpers import compare

pytestmark = [pytest.mark.docker, pytest.mark.slow]

TABLE_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestTable(t *testing.T) {\n"
    "\tfor _, c := range []struct {\n\t\tname    string\n\t\ta, b, want int\n\t}{\n"
    '\t\t{"zeros", 0, 0, 0},\n\t\t{"two and three", 2, 3, 5},\n\t} {\n'
    "\t\tt.Run(c.name, func(t *testing.T) {\n"
    "\t\t\tif got := Add(c.a, c.b); got != c.want {\n"
    '\t\t\t\tt.Fatalf("Add = %d", got)\n\t\t\t}\n\t\t})\n\t}\n}\n'
)
SUB_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(Sub(5, 3))\n\t}\n}\n"
)
PACKAGE = "example.com/calc"


@dataclass
class GoRepo:
    repo: Path
    base: str
    heads: dict[str, str]


@pytest.fixture(scope="module")
def go_repo(tmp_path_factory: pytest.TempPathFactory) -> GoRepo:
    require_docker(GO_IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("go-compare") / "repo")
    base = commit(
        repo,
        {"go.mod": GO_MOD, "calc.go": CALC_BUGGY, "mul_test.go": MUL_TEST},
        "base: Add is wrong",
    )
    variants: dict[str, dict[str, str | bytes | None]] = {
        "fix": {"calc.go": CALC_FIXED, "add_test.go": ADD_TEST},
        "subtest": {"calc.go": CALC_FIXED, "table_test.go": TABLE_TEST},
        # the code is touched (a comment), Add stays wrong, the new test fails on both sides
        "nothing": {
            "calc.go": CALC_BUGGY.replace("// Add returns", "// Add adds: it returns"),
            "add_test.go": ADD_TEST,
        },
        "no_build": {
            "calc.go": CALC_FIXED
            + "\n// Sub returns a-b.\nfunc Sub(a, b int) int { return a - b }\n",
            "sub_test.go": SUB_TEST,
        },
    }
    heads = {}
    for name, files in variants.items():
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return GoRepo(repo, base, heads)


def test_a_go_fix_is_verified_by_its_new_test(go_repo: GoRepo, tmp_path: Path) -> None:
    code, result, _ = compare(tmp_path, go_repo.repo, go_repo.base, go_repo.heads["fix"], GO_IMAGE)
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    assert [p.id for p in result.proofs] == [f"{PACKAGE}::::TestAdd"]
    assert result.code_paths == ("calc.go",) and result.test_paths == ("add_test.go",)
    assert all(p.reruns == 3 for p in result.proofs)  # by id, each side, three times
    assert result.base_own is None  # no test of base changed: base ran once
    assert "Add(2, 3) = -1" in (result.proofs[0].message or "")


def test_a_subtest_proves_the_fix_by_its_id(go_repo: GoRepo, tmp_path: Path) -> None:
    code, result, _ = compare(
        tmp_path, go_repo.repo, go_repo.base, go_repo.heads["subtest"], GO_IMAGE
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    # the failing case and its parent; the case that passed on base's code proves nothing
    assert {p.id for p in result.proofs} == {
        f"{PACKAGE}::::TestTable",
        f"{PACKAGE}::::TestTable/two_and_three",
    }
    assert all(p.reruns == 3 for p in result.proofs)
    assert "3 time(s) per side" in result.reasons[0] and "whole suite" not in result.reasons[0]


def test_a_pr_that_fixes_nothing_is_not_proven(go_repo: GoRepo, tmp_path: Path) -> None:
    code, result, _ = compare(
        tmp_path, go_repo.repo, go_repo.base, go_repo.heads["nothing"], GO_IMAGE
    )
    assert (code, result.verdict) == (4, "NOT_PROVEN"), result.reasons
    assert result.proofs == ()
    assert any("no test fails on base's code and passes on head" in r for r in result.reasons)


def test_a_package_that_does_not_build_on_base_is_the_new_tests_failure(
    go_repo: GoRepo, tmp_path: Path
) -> None:
    code, result, _ = compare(
        tmp_path, go_repo.repo, go_repo.base, go_repo.heads["no_build"], GO_IMAGE
    )
    assert (code, result.verdict) == (0, "VERIFIED"), result.reasons
    # TestSub could not build on base's code; TestMul, in the same package, passed in base's
    # own run: only the package's build failed on before, so it is no proof
    assert [p.id for p in result.proofs] == [f"{PACKAGE}::::TestSub"]
    assert "undefined: Sub" in (result.proofs[0].message or "")
    assert result.base_own is not None
