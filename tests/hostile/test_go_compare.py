"""Issue 38 part 2: PRs against a Go module that try to be VERIFIED without fixing the code.

Each family is a pair on the real daemon (verify-pr-go:local, `verify-pr compare`): the attack,
which must NOT be VERIFIED, and its honest twin, the same shape with the code really fixed,
which IS VERIFIED (the positive control: the rule that stops the attack does not stop a fix).

- renamed: base's failing test file loses its `_test.go` suffix (the go command no longer runs
  it as a test; the file is code by the toolchain's own rule): the test is gone, not passed.
- build_tag: `//go:build ignore` on base's failing test file hides it; the PR's version of a
  test file runs on both sides, so no tag can hide it on one side only: it is gone.
- testmain: a TestMain that exits 0 whatever the tests did: a file that judges the PR.
- init_patch: an `init()` in a new test file patches the code under test (the code change
  beside it is a variable the init sets): head adds a tamper signal.
- golden: the PR rewrites a `testdata/` golden file to the wrong output (data, the PR's
  version on both sides): the test was changed, not the code.
- report_path: a test finds the report it is written to and appends a forged pass for itself:
  the go command writes the stream at its own offset, so the real events stand.
- replace: go.mod's `replace` points the dependency at a fixed copy inside the tree: go.mod
  judges the PR (and under --strict-harness base's go.mod runs: the test fails on head).
- code_in_test / redeclared: the fix lives in an in-package test file (compiled into the same
  package): head's code calls a function only that test file declares, or the test file
  redeclares base's function (the package does not build on base's code, so its tests
  "fail" there). Both were VERIFIED before the rule (``runners/go/test_decls.py``): such a
  test file judges the PR.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import commit, init_repo
from tests.hostile.helpers import RECORD, control
from tests.integration.go_helpers import (
    ADD_TEST,
    CALC_BUGGY,
    CALC_FIXED,
    GO_IMAGE,
    GO_MOD,
    MUL_TEST,
)
from tests.integration.helpers import compare
from verify_pr.models.compare import CompareResult

PACKAGE = "example.com/calc"
TEST_MAIN = (
    'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
    "func TestMain(m *testing.M) {\n\tos.Exit(m.Run())\n}\n"
)
TEST_MAIN_EXIT0 = TEST_MAIN.replace("\tos.Exit(m.Run())\n", "\tm.Run()\n\tos.Exit(0)\n")
# init_patch: Add goes through a variable a test file can set
CALC_VAR = (
    "package calc\n\n"
    "var addImpl = func(a, b int) int { return a - b }\n\n"
    "// Add returns a+b.\nfunc Add(a, b int) int { return addImpl(a, b) }\n\n"
    "// Mul returns a*b.\nfunc Mul(a, b int) int { return a * b }\n"
)
INIT_TEST = ADD_TEST.replace(
    "func TestAdd",
    "func init() {\n\tReady = true\n\taddImpl = func(a, b int) int { return a + b }\n}\n\n"
    "func TestAdd",
)
# golden: Render's output is compared with testdata/golden.txt
RENDER_BUGGY = 'package calc\n\n// Render greets name.\nfunc Render(name string) string { return "hello " + name }\n'
RENDER_FIXED = RENDER_BUGGY.replace('"hello "', '"Hello "')
RENDER_TEST = (
    'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\n'
    "func TestRender(t *testing.T) {\n"
    '\twant, err := os.ReadFile("testdata/golden.txt")\n'
    "\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n"
    '\tif got := Render("World"); got != string(want) {\n'
    '\t\tt.Fatalf("Render = %q, want %q", got, want)\n\t}\n}\n'
)
# report_path: the test finds the report (/work/vpr-report-*) and appends its own pass
REPORT_TEST = (
    'package calc\n\nimport (\n\t"os"\n\t"path/filepath"\n\t"testing"\n)\n\n'
    "func TestAdd(t *testing.T) {\n"
    '\tpaths, _ := filepath.Glob("/work/vpr-report-*")\n'
    "\tfor _, p := range paths {\n"
    '\t\tif _, err := os.Stat(p); err == nil {\n\t\t\tt.Logf("FORGER found %s", p)\n\t\t}\n'
    "\t\t@FORGE@\n"
    "\t}\n"
    "\tif got := Add(2, 3); got != 5 {\n"
    '\t\tt.Fatalf("Add(2, 3) = %d", got)\n\t}\n}\n'
)
FORGE = (
    "f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)\n"
    "\t\tif err == nil {\n"
    '\t\t\tf.WriteString(`{"Action":"pass","Package":"example.com/calc","Test":"TestAdd"}` + "\\n")\n'
    '\t\t\tf.Close()\n\t\t\tt.Logf("FORGER wrote %s", p)\n\t\t}'
)
# replace: the dependency is a module inside the tree, taken through go.mod's replace
APP_MOD = (
    "module example.com/app\n\ngo 1.22\n\nrequire example.com/lib v0.0.0\n\n"
    "replace example.com/lib => ./lib\n"
)
LIB_MOD = "module example.com/lib\n\ngo 1.22\n"
LIB_BUGGY = "package lib\n\n// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n"
LIB_FIXED = LIB_BUGGY.replace("return a - b", "return a + b")
APP = (
    'package app\n\nimport "example.com/lib"\n\n'
    "// Sum adds its arguments.\nfunc Sum(a, b int) int { return lib.Add(a, b) }\n"
)
APP_TEST = (
    'package app\n\nimport "testing"\n\n'
    "func TestSum(t *testing.T) {\n\tif got := Sum(2, 3); got != 5 {\n"
    '\t\tt.Fatalf("Sum(2, 3) = %d", got)\n\t}\n}\n'
)

# code_in_test, redeclared: the fix in a test file; the twin's test file has a helper of its own
IMPL_TEST = (
    'package calc\n\nimport "testing"\n\n'
    "func addImpl(a, b int) int { return a + b }\n\nfunc TestImpl(t *testing.T) {}\n"
)
REDECLARE_TEST = IMPL_TEST.replace("func addImpl(", "func Add(")
HELPER_TEST = ADD_TEST.replace("Add(2, 3); got != 5", "sum3(2, 3, 0); got != 5") + (
    "\nfunc sum3(a, b, c int) int { return Add(Add(a, b), c) }\n"
)

Files = dict[str, str | bytes | None]
BASE: Files = {"go.mod": GO_MOD, "calc.go": CALC_BUGGY, "mul_test.go": MUL_TEST}
FAILING_BASE: Files = {**BASE, "add_test.go": ADD_TEST}

# family -> (base, attack's head, twin's head)
FAMILIES: dict[str, tuple[Files, Files, Files]] = {
    "renamed": (
        FAILING_BASE,
        {"add_test.go": None, "add_check.go": ADD_TEST},
        {"add_test.go": None, "sum_test.go": ADD_TEST, "calc.go": CALC_FIXED},
    ),
    "build_tag": (
        FAILING_BASE,
        {
            "add_test.go": "//go:build ignore\n\n" + ADD_TEST,
            "calc.go": CALC_BUGGY.replace("// Add returns", "// Add sums: it returns"),
        },
        {"add_test.go": "//go:build !plan9\n\n" + ADD_TEST, "calc.go": CALC_FIXED},
    ),
    "testmain": (
        {**BASE, "main_test.go": TEST_MAIN},
        {
            "main_test.go": TEST_MAIN_EXIT0,
            "calc.go": CALC_FIXED.replace("return a * b", "return a + b"),  # breaks Mul
            "add_test.go": ADD_TEST,
        },
        {"calc.go": CALC_FIXED, "add_test.go": ADD_TEST},
    ),
    "init_patch": (
        {**BASE, "calc.go": CALC_VAR},
        {
            "calc.go": CALC_VAR + "\n// Ready says the package is set up.\nvar Ready bool\n",
            "add_test.go": INIT_TEST,
        },
        {"calc.go": CALC_VAR.replace("return a - b", "return a + b"), "add_test.go": ADD_TEST},
    ),
    "golden": (
        {
            **BASE,
            "render.go": RENDER_BUGGY,
            "render_test.go": RENDER_TEST,
            "testdata/golden.txt": "Hello World",
        },
        {"testdata/golden.txt": "hello World"},
        {"render.go": RENDER_FIXED},
    ),
    "report_path": (
        BASE,
        {"add_test.go": REPORT_TEST.replace("@FORGE@", FORGE)},
        {"add_test.go": REPORT_TEST.replace("\t\t@FORGE@\n", ""), "calc.go": CALC_FIXED},
    ),
    "code_in_test": (
        BASE,
        {
            "calc.go": CALC_BUGGY.replace("return a - b", "return addImpl(a, b)"),
            "impl_test.go": IMPL_TEST,
            "add_test.go": ADD_TEST,
        },
        {"calc.go": CALC_FIXED, "add_test.go": HELPER_TEST},
    ),
    "redeclared": (
        BASE,
        {
            "calc.go": CALC_BUGGY.replace(
                "// Add returns a+b.\nfunc Add(a, b int) int { return a - b }\n\n", ""
            ),
            "impl_test.go": REDECLARE_TEST,
            "add_test.go": ADD_TEST,
        },
        {"calc.go": CALC_FIXED, "add_test.go": HELPER_TEST},
    ),
    "replace": (
        {"go.mod": APP_MOD, "app.go": APP, "lib/go.mod": LIB_MOD, "lib/add.go": LIB_BUGGY},
        {
            "go.mod": APP_MOD.replace("=> ./lib", "=> ./third_party/lib"),
            "third_party/lib/go.mod": LIB_MOD,
            "third_party/lib/add.go": LIB_FIXED,
            "app_test.go": APP_TEST,
        },
        {"lib/add.go": LIB_FIXED, "app_test.go": APP_TEST},
    ),
}


def _compare(tmp_path: Path, family: str, side: str, *extra: str) -> CompareResult:
    require_docker(GO_IMAGE)
    base_files, attack, twin = FAMILIES[family]
    repo = init_repo(tmp_path / "repo")
    base = commit(repo, dict(base_files), "base")
    head = commit(repo, dict(attack if side == "attack" else twin), side)
    _code, result, _summary = compare(tmp_path / side, repo, base, head, GO_IMAGE, *extra)
    return result


def _record(result: CompareResult, needle: str | None = None) -> str:
    reasons = "\n".join(result.reasons)
    shown = result.verdict.value
    if needle is not None:
        assert needle in reasons, reasons
        shown += f", reason names {needle!r}"
    RECORD.append(("outcome", shown))
    return reasons


def _statuses(result: CompareResult, side: str) -> dict[str, str]:
    verdict = result.head if side == "head" else result.before
    return {c.name: c.status.value for c in verdict.testcases}


# family -> what the NOT PROVEN's reasons must name
NEEDLES = {
    "renamed": "of base are gone on head",
    "build_tag": "of base are gone on head",
    "testmain": "main_test.go",
    "init_patch": "add_test.go defines init",
    "golden": "does not show what the PR fixes",
    "report_path": "does not show what the PR fixes",
    "replace": "go.mod",
    "code_in_test": "code that builds only with the tests",
    "redeclared": "code that builds only with the tests",
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_go_attack_is_not_verified(family: str, tmp_path: Path) -> None:
    result = _compare(tmp_path, family, "attack")
    assert result.verdict.value == "NOT_PROVEN", result.reasons
    _record(result, NEEDLES[family])
    head = _statuses(result, "head")
    if family == "renamed":
        assert "TestAdd" not in head
        control("under a _test.go name the same test runs and fails on base's code (the twin)")
    elif family == "build_tag":
        assert "TestAdd" not in head
        control("without the tag the same file runs TestAdd, failing on base (the twin)")
    elif family == "testmain":
        assert head.get("TestMul") == "failed"  # the exit 0 hides nothing from the stream
        control("TestMain exits 0 after TestMul failed: go test's exit status is 0")
    elif family == "init_patch":
        assert head.get("TestAdd") == "passed"
        control("the init() fixes Add on head: TestAdd passes there without a fix in the code")
    elif family == "golden":
        assert head.get("TestRender") == "passed"
        control("with the rewritten golden file TestRender passes on base's code")
    elif family == "report_path":
        add = next(c for c in result.head.testcases if c.name == "TestAdd")
        assert add.status.value == "failed" and "FORGER wrote /work/vpr-report-" in (
            add.message or ""
        )
        control("the test found the report it is written to and appended its own pass")
    elif family == "code_in_test":
        # go's coverage (-coverpkg) builds the package without its tests too: the code that
        # calls what only a test file declares cannot build there, on head as on base
        assert head == {"(test file failed to run)": "error"}, head
        control("calc.go calls addImpl, which only impl_test.go declares: alone it cannot build")
    elif family == "redeclared":
        assert head.get("TestAdd") == "passed"
        assert f"{PACKAGE}::::TestAdd" in {p.id for p in result.proofs}
        control("TestAdd fails on base's code and passes on head: a proof, but for the rule")
    elif family == "replace":
        assert head.get("TestSum") == "passed"
        control("TestSum passes on head through the fixed copy go.mod's replace names")


def test_a_go_replace_under_strict_harness_runs_bases_go_mod(tmp_path: Path) -> None:
    result = _compare(tmp_path, "replace", "attack", "--strict-harness")
    assert result.verdict.value == "NOT_PROVEN", result.reasons
    _record(result)
    assert _statuses(result, "head").get("TestSum") == "failed"
    control("without --strict-harness head runs the fixed copy and TestSum passes")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_go_honest_twin_is_verified(family: str, tmp_path: Path) -> None:
    result = _compare(tmp_path, family, "twin")
    assert result.verdict.value == "VERIFIED", result.reasons
    _record(result)
    assert result.proofs, result.reasons
