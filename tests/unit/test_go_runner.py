"""runners.go: detection, the command as argv, the toolchain's facts (go list) and the
harness, on the fixture modules and hand-written go list output."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from verify_pr.contract import RunnerName, new_report_path
from verify_pr.errors import InputRefused, ReportError
from verify_pr.runners.base import Evidence
from verify_pr.runners.detect import detect_runner, detections
from verify_pr.runners.go import facts, harness_code
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
    scratch = ["/work/.verify-pr-go/cache", "/work/.verify-pr-go/tmp"]
    assert words[:5] == ["mkdir", "-p", *scratch, "&&"]
    seed = "/usr/local/lib/go-cache"
    assert words[5:17] == [
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
    assert words[-2:] == [">", path]
    go = words.index("go")
    assert words[go:-2] == ["go", "test", "-json", "-count=1", "./..."]
    env = dict(w.split("=", 1) for w in words[19:go])
    assert env["GOTOOLCHAIN"] == "local" and env["GOPROXY"] == "off"
    assert env["GOFLAGS"] == "-mod=mod" and env["GOENV"] == "off"
    assert [env["GOCACHE"], env["GOTMPDIR"]] == scratch


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


def test_compare_refuses_the_go_runner_until_it_is_built(tmp_path: Path) -> None:
    """Run mode only (issue 38): compare's selection, harness and re-runs know nothing of go
    yet, so a go tree is refused before anything runs, never judged by another runner's rules."""
    from verify_pr.verify.runs.planner import Planner
    from verify_pr.verify.settings import SuiteSettings

    (tmp_path / "go.mod").write_text("module example.com/m\n")
    with pytest.raises(InputRefused, match="go runner"):
        Planner.on_base(SuiteSettings("verify-pr-go:local"), tmp_path)
    with pytest.raises(InputRefused, match="go runner"):
        Planner.on_base(SuiteSettings("verify-pr-go:local", runner="go"), tmp_path)
