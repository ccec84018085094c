"""go's own coverage profile as compare's tracer (runners/go/coverage.py): the command it
instruments, and the profile read strictly and mapped to the tree's paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.runners.go.coverage import (
    ProfileError,
    instrument,
    module_path,
    parse_profile,
    profile_names,
)
from verify_pr.runners.go.runner import GoRunner

# what go 1.27 writes for `go test -covermode=set -coverpkg=./,./calc` over two packages
PROFILE = (
    b"mode: set\n"
    b"example.com/m/calc/calc.go:4.26,6.2 1 1\n"
    b"example.com/m/calc/calc.go:9.26,11.17 2 0\n"
    b"example.com/m/calc/calc.go:11.17,13.3 1 0\n"
    b"example.com/m/other.go:3.14,5.2 1 1\n"
    b"mode: set\n"
    b"example.com/m/calc/calc.go:4.26,6.2 1 0\n"
)


def test_the_suite_command_gets_the_profile_of_the_changed_packages() -> None:
    command = GoRunner().command("/work/vpr-report-0123456789abcdef0123.json")
    traced = instrument(command, ["calc/calc.go", "main.go", "calc/more.go"], "/work/c.json")
    assert traced is not None
    assert "-count=1 -covermode=set -coverpkg=.,./calc -coverprofile=/work/c.json " in traced
    assert traced.replace("-covermode=set -coverpkg=.,./calc -coverprofile=/work/c.json ", "") == (
        command
    )


@pytest.mark.parametrize(
    "command",
    ["go test ./...", "go test -count=1 -count=1 ./...", "sh -c 'pytest -count=1'x"],
)
def test_a_command_that_is_not_the_suites_is_not_measured(command: str) -> None:
    assert instrument(command, ["a.go"], "/work/c.json") is None


def test_a_folder_the_flag_cannot_carry_is_not_measured() -> None:
    command = GoRunner().command("/work/vpr-report-0123456789abcdef0123.json")
    assert instrument(command, ["a b/x.go"], "/work/c.json") is None
    assert instrument(command, ["$(x)/x.go"], "/work/c.json") is None
    # what go never builds as a package of the module
    assert instrument(command, ["vendor/a/x.go", "testdata/y.go", "_old/z.go"], "/c.json") is None
    traced = instrument(command, ["vendor/a/x.go", "lib/x.go"], "/work/c.json")
    assert traced is not None and "-coverpkg=./lib " in traced


def test_the_profile_says_per_line_what_ran() -> None:
    found = parse_profile(PROFILE, {"example.com/m/calc/calc.go": "calc/calc.go"}, 1000)
    executable, ran = found["calc/calc.go"]
    assert executable == frozenset({4, 5, 6, 9, 10, 11, 12, 13})
    # a block that counted in either package's binary ran its lines; line 11 is shared by a
    # block that did not run and one that did not either
    assert ran == frozenset({4, 5, 6})
    assert set(found) == {"calc/calc.go"}  # other.go was not asked for


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b'{"version": 1}',
        b"mode: set\nexample.com/m/calc/calc.go:4.26,6.2 1\n",
        b"mode: set\nexample.com/m/calc/calc.go:6.2,4.26 1 1\n",
        b"mode: set\nexample.com/m/calc/calc.go:0.1,4.26 1 1\n",
        b"mode: set\n\xff\n",
        b"mode: set\nexample.com/m/calc/calc.go:1.1,200001.1 1 1\n",
    ],
)
def test_what_go_does_not_write_is_refused(data: bytes) -> None:
    with pytest.raises(ProfileError):
        parse_profile(data, {"example.com/m/calc/calc.go": "calc/calc.go"}, 1000)


def test_each_file_is_named_by_the_module_above_it(tmp_path: Path) -> None:
    """The root module's files, and a nested module's (go.mod's replace points at it): go's
    profile names a file by its own module's path."""
    (tmp_path / "lib" / "deep").mkdir(parents=True)
    (tmp_path / "go.mod").write_text("module example.com/app\n")
    (tmp_path / "lib" / "go.mod").write_text("module example.com/lib\n")
    (tmp_path / "orphan").mkdir()
    files = ["app.go", "lib/add.go", "lib/deep/x.go", "orphan/y.go"]
    (tmp_path / "orphan" / "go.mod").write_text("go 1.22\n")  # declares no module
    assert profile_names(tmp_path, files) == {
        "example.com/app/app.go": "app.go",
        "example.com/lib/add.go": "lib/add.go",
        "example.com/lib/deep/x.go": "lib/deep/x.go",
    }


def test_the_module_path_is_read_from_go_mod() -> None:
    assert module_path("module example.com/m\n\ngo 1.22\n") == "example.com/m"
    assert module_path('// x\nmodule "example.com/q" // quoted\n') == "example.com/q"
    assert module_path("go 1.22\n") is None
    assert module_path("module -x\n") is None


def test_the_patch_coverage_reader_maps_the_profile_by_the_tree(tmp_path: Path) -> None:
    from verify_pr.sandbox.spool import ReportSpool
    from verify_pr.verify.coverage.patch import CoverageDataError, parse_line_data

    (tmp_path / "go.mod").write_text("module example.com/m\n")
    spool = ReportSpool()
    spool.write(PROFILE)
    data = parse_line_data(spool, ["calc/calc.go"], tmp_path)
    assert data.files["calc/calc.go"].run == frozenset({4, 5, 6})
    with pytest.raises(CoverageDataError):
        parse_line_data(spool, ["calc/calc.go"], None)
