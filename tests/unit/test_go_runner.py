"""runners.go: detection, the command as argv, the toolchain's facts (go list) and the
harness, on the fixture modules and hand-written go list output."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from verify_pr.contract import RunnerName, new_report_path
from verify_pr.errors import InputRefused, ReportError
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.runners.base import Evidence
from verify_pr.runners.detect import detect_runner, detections
from verify_pr.runners.go import facts, harness_code, test_decls
from verify_pr.runners.go.runner import GoRunner

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "go"


def test_go_mod_is_the_evidence(tmp_path: Path) -> None:
    assert detections(tmp_path) == []
    (tmp_path / "go.mod").write_text("module example.com/x\n\ngo 1.22\n")
    (found,) = detections(tmp_path)
    assert (found.runner, found.evidence, found.source) == (
        RunnerName.GO,
        Evidence.CONFIG,
        "go.mod",
    )
    assert isinstance(detect_runner(tmp_path), GoRunner)


def test_a_go_mod_directory_is_no_evidence(tmp_path: Path) -> None:
    (tmp_path / "go.mod").mkdir()
    assert detections(tmp_path) == []


def test_command_runs_go_test_json_offline() -> None:
    path = new_report_path(".json")
    words = shlex.split(GoRunner().command(path))
    # a shell function runs go test: its arguments (a selection) replace ./...
    function = words.index("verify_pr_go_test()")
    assert words[function + 1 : function + 12] == [
        "{",
        "[",
        "$#",
        "-gt",
        "0",
        "]",
        "||",
        "set",
        "--",
        "./...;",
        "env",
    ]
    go = words.index("go")
    assert words[go : go + 4] == ["go", "test", "-json", "-count=1"]
    assert words[go + 4 : go + 8] == ["$@", ">", f"{path};", "};"]
    env = dict(w.split("=", 1) for w in words[function + 12 : go])
    assert env["GOTOOLCHAIN"] == "local" and env["GOPROXY"] == "off"
    assert env["GOFLAGS"] == "-mod=mod" and env["GOENV"] == "off"
    scratch = ["/work/.verify-pr-go/cache", "/work/.verify-pr-go/tmp"]
    assert [env["GOCACHE"], env["GOTMPDIR"]] == scratch
    rest = words[go + 8 :]
    assert rest[:5] == ["mkdir", "-p", *scratch, "&&"]
    seed = "/usr/local/lib/go-cache"
    assert rest[5:17] == [
        "{",
        "[",
        "!",
        "-d",
        seed,
        "]",
        "||",
        "cp",
        "-R",
        f"{seed}/.",
        f"{scratch[0]}/;",
        "}",
    ]
    assert rest[17:] == ["&&", "verify_pr_go_test"]


def test_a_vendored_module_builds_from_vendor(tmp_path: Path) -> None:
    path = new_report_path(".json")
    (tmp_path / "go.mod").write_text("module example.com/m\n")
    assert "-mod=vendor" not in GoRunner().plan(path, tmp_path).command
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "modules.txt").write_text("# example.com/dep v1.0.0\n")
    words = shlex.split(GoRunner().plan(path, tmp_path).command)
    go = words.index("go")
    assert words[go : go + 5] == ["go", "test", "-json", "-count=1", "-mod=vendor"]


def test_command_refuses_a_report_path_of_its_own() -> None:
    with pytest.raises(InputRefused):
        GoRunner().command("/work/report.json; rm -rf /")


def _listed(*packages: dict[str, object]) -> bytes:
    return b"".join(json.dumps(p, indent="\t").encode() + b"\n" for p in packages)


def test_go_list_names_the_test_files() -> None:
    data = _listed(
        {"Dir": "/work", "ImportPath": "example.com/m", "TestGoFiles": ["a_test.go"]},
        {"Dir": "/work/inner", "ImportPath": "example.com/m/inner", "XTestGoFiles": ["b_test.go"]},
        {"Dir": "/work/bad", "ImportPath": "example.com/m/bad", "Error": {"Err": "no Go files"}},
        {"Dir": "/root/go/pkg/mod/x", "ImportPath": "x", "TestGoFiles": ["c_test.go"]},
    )
    packages = facts.parse_go_list(data)
    assert facts.listed_test_files(packages) == {"a_test.go", "inner/b_test.go"}
    assert [p.dir for p in packages] == ["", "inner", "bad", None]
    assert packages[2].error == "no Go files"


@pytest.mark.parametrize(
    "data",
    [
        b"{",
        b"[]",
        b'{"ImportPath": "x"}',
        b'{"Dir": "/work", "ImportPath": "x", "TestGoFiles": "a_test.go"}',
        b'{"Dir": "/work", "ImportPath": "x", "TestGoFiles": ["../a_test.go"]}',
        b'{"Dir": "/work", "ImportPath": "x", "TestGoFiles": ["a.go"]}',
        b"\xff",
    ],
)
def test_go_list_refuses_what_it_cannot_vouch_for(data: bytes) -> None:
    with pytest.raises(ReportError):
        facts.parse_go_list(data)


def test_testdata_is_data_and_module_files_are_harness() -> None:
    assert facts.is_data("pkg/testdata/golden.txt")
    assert not facts.is_data("testdata_test.go")
    for path in ("go.mod", "sub/go.sum", "go.work", "go.work.sum", "vendor/modules.txt"):
        assert facts.is_module_file(path)
    assert not facts.is_module_file("modules.txt")


def test_harness_files(tmp_path: Path) -> None:
    files = {
        "go.mod": "module example.com/m\n",
        "go.sum": "",
        "a_test.go": "package m\n\nfunc TestA(t *testing.T) {}\n",
        "helpers_test.go": "package m\n\nfunc helper() {}\n",
        "main_test.go": "package m\n\nfunc TestMain(m *testing.M) { m.Run() }\n",
        "ex_test.go": "package m\n\nfunc ExampleA() {}\n",
        "notatest_test.go": "package m\n\nfunc Testing() {}\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    listed = [n for n in files if n.endswith("_test.go")]
    packages = (facts.GoPackage("example.com/m", "", tuple(listed), None),)
    assert facts.harness_paths(tmp_path, packages) == {
        "go.mod",
        "go.sum",
        "helpers_test.go",
        "main_test.go",
        "notatest_test.go",
    }


def test_tamper_signals_name_testmain_and_init(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/m\n")
    (tmp_path / "a_test.go").write_text("package m\n\nfunc init() { patch() }\n")
    (tmp_path / "testdata").mkdir()
    (tmp_path / "testdata" / "x_test.go").write_text("func TestMain(m *testing.M) {}\n")
    assert GoRunner().tamper_signals(tmp_path) == [
        "a_test.go defines init: init() in a test file runs before every test"
    ]
    assert GoRunner().tamper_signals(FIXTURES / "pass") == []
    assert harness_code.go_test_files(FIXTURES / "pass") == ["sum_test.go", "inner/inner_test.go"]


def test_compare_plans_a_go_tree(tmp_path: Path) -> None:
    """Issue 38 part 2: compare judges a go tree by go's own answers (no refusal)."""
    from verify_pr.verify.compare_run import _plan
    from verify_pr.verify.settings import SuiteSettings

    (tmp_path / "go.mod").write_text("module example.com/m\n")
    plan = _plan(SuiteSettings("verify-pr-go:local"), tmp_path)
    assert plan.runner == "go" and plan.command.endswith("&& verify_pr_go_test")


def _case(package: str, name: str) -> TestCase:
    return TestCase.build(
        name=name, classname=None, file=package, line=None, status=TestStatus.PASSED
    )


def test_a_test_is_selected_by_its_levels_in_its_package() -> None:
    runner = GoRunner()
    assert runner.select(_case("example.com/m/calc", "TestAdd")) == (
        "-run",
        "^TestAdd$",
        "example.com/m/calc",
    )
    assert runner.select(_case("example.com/m", "TestAdd/two+three(x)")) == (
        "-run",
        "^TestAdd$/^two\\+three\\(x\\)$",
        "example.com/m",
    )


def test_a_batch_runs_every_selected_test_whole() -> None:
    runner = GoRunner()
    same_depth = [_case("m/a", "TestA/x"), _case("m/b", "TestB/y"), _case("m/a", "TestA/z")]
    assert runner.select_batch(same_depth) == ("-run", "^(TestA|TestB)$/^(x|y|z)$", "m/a", "m/b")
    # a whole test beside a subtest: the top level only, so nothing below TestC is filtered
    mixed = [_case("m", "TestA/x"), _case("m", "TestC")]
    assert runner.select_batch(mixed) == ("-run", "^(TestA|TestC)$", "m")
    assert runner.select_repeated(mixed, 3) is None  # -count=N keeps the binary's state


@pytest.mark.parametrize(
    ("package", "name"),
    [
        ("-exec=/bin/sh", "TestA"),
        ("m/...", "TestA"),
        ("m", "(test file failed to run)"),
        ("m", "TestA//x"),
        ("m", "TestA\tx"),
        ("", "TestA"),
        ("m pkg", "TestA"),
    ],
)
def test_what_is_no_test_or_package_selects_nothing(package: str, name: str) -> None:
    runner = GoRunner()
    assert runner.select(_case(package, name)) is None
    assert runner.select_batch([_case("m", "TestOk"), _case(package, name)]) is None


def test_the_harness_read_from_the_files(tmp_path: Path) -> None:
    files = {
        "go.mod": "module m\n",
        "vendor/modules.txt": "# x\n",
        "calc.go": "package m\n",
        "calc_test.go": "package m\n\nfunc TestAdd(t *testing.T) {}\n",
        "main_test.go": "package m\n\nfunc TestMain(m *testing.M) {}\n",
        "helpers_test.go": "package m\n\nfunc helper() {}\n",
        "testdata/x_test.go": "package m\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = GoRunner().harness_paths((tmp_path,))
    assert sorted(found) == ["go.mod", "helpers_test.go", "main_test.go", "vendor/modules.txt"]
    assert "TestMain" in found["main_test.go"]


def test_a_test_file_that_declares_what_the_code_names_is_harness(tmp_path: Path) -> None:
    """The fix in a test file: head's code calls a function only a test file declares, or a
    test file redeclares base's function (the package does not build on base's code)."""
    base, head = tmp_path / "base", tmp_path / "head"
    for tree in (base, head):
        (tree / "pkg").mkdir(parents=True)
    (base / "pkg" / "calc.go").write_text(
        "package calc\n\n// helper is a word here\nfunc Add(a, b int) int { return a - b }\n"
    )
    (head / "pkg" / "calc.go").write_text("package calc\n\nfunc Sum() int { return addImpl(1) }\n")
    tests = {
        "impl_test.go": "package calc\n\nvar (\n\taddImpl = func(a int) int { return a }\n)\n",
        "redeclare_test.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
        "helper_test.go": "package calc\n\nfunc helper() {}\n\nfunc TestX(t *testing.T) {}\n",
        "ext_test.go": "package calc_test\n\nfunc Add() {}\n\nfunc TestY(t *testing.T) {}\n",
    }
    for name, text in tests.items():
        (head / "pkg" / name).write_text(text)
    found = test_decls.test_files_with_code((base, head))
    assert sorted(found) == ["pkg/impl_test.go", "pkg/redeclare_test.go"]
    assert "declares addImpl, which the code file pkg/calc.go names" in found["pkg/impl_test.go"]
    assert test_decls.declared(b"func (c *C) fixed() {}\nfunc TestZ(t *T) {}\n") == {b"fixed"}
