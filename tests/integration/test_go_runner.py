"""The go runner end to end: each Go fixture module through ``verify-pr run --runner go`` (a
subprocess, as a user runs it) in verify-pr-go:local, with its verdict and per-test counts;
and the toolchain's own facts (``go list -json``) about a tree, read in the same image."""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from tests.conftest import _docker_problem, require_docker
from tests.integration.go_helpers import GO_ATTACKS, GO_FIXTURES, GO_IMAGE
from tests.integration.helpers import Counts, Run, counts, verify_pr
from verify_pr.exit_codes import RunExit

# total, passed, failed, error, skipped
EXPECTED: dict[str, tuple[str, Counts]] = {
    # TestAdd, TestTable and its two subtests, and another package's pass and skip
    "pass": ("PASS", (6, 5, 0, 0, 1)),
    "fail": ("FAIL", (2, 1, 1, 0, 0)),
    # the test file does not compile: one stand-in error for the package's tests
    "build_fail": ("FAIL", (1, 0, 0, 1, 0)),
    "panic": ("FAIL", (2, 1, 1, 0, 0)),
    "no_tests": ("NOT_PROVEN", (0, 0, 0, 0, 0)),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Future[Run]]:
    root = tmp_path_factory.mktemp("go-runs")
    futures: dict[str, Future[Run]] = {}
    if _docker_problem(GO_IMAGE) is not None:
        return futures
    pool = ThreadPoolExecutor(max_workers=2)
    for key in sorted(EXPECTED):
        futures[key] = pool.submit(
            verify_pr,
            GO_FIXTURES / key,
            GO_IMAGE,
            root / key,
            "--runner",
            "go",
            "--timeout",
            "600",
            timeout=900,
        )
    pool.shutdown(wait=False)
    return futures


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_go_fixture_verdict(key: str, runs: dict[str, Future[Run]]) -> None:
    require_docker(GO_IMAGE)
    run = runs[key].result(timeout=900)
    v = run.verdict
    assert v, run.stderr
    verdict, expect = EXPECTED[key]
    assert (v["verdict"], counts(v)) == (verdict, expect), "\n".join(v["reasons"])
    assert run.code == RunExit[verdict], run.stderr
    assert v["runner"] == "go"
    # go test through the shell function whose arguments replace ./... (none in a run)
    assert 'go test -json -count=1 "$@"' in v["command"] and "set -- ./...;" in v["command"]
    assert v["command"].endswith("&& verify_pr_go_test")
    if v["totals"] is not None:
        assert len(v["testcases"]) == v["totals"]["total"]


def test_every_go_fixture_has_an_expectation_or_is_hostile() -> None:
    on_disk = {p.name for p in GO_FIXTURES.iterdir() if p.is_dir()}
    assert on_disk == set(EXPECTED) | set(GO_ATTACKS)


@pytest.mark.slow
def test_go_list_in_the_sandbox_names_the_test_files() -> None:
    """facts' command in the real sandbox: the toolchain lists each package's test files (in
    and out of package), and the harness adds the module file."""
    from verify_pr.contract import new_report_path
    from verify_pr.runners.go import facts
    from verify_pr.sandbox.run import SandboxRequest, run_sandbox

    require_docker(GO_IMAGE)
    tree = GO_FIXTURES / "pass"
    path = new_report_path(".json")
    run = run_sandbox(SandboxRequest(tree, facts.list_command(path), GO_IMAGE, 600, 1 << 20, path))
    assert run.report is not None, run.output[-2000:]
    with run.report.open() as fh:
        packages = facts.parse_go_list(fh.read())
    assert {p.import_path: p.dir for p in packages} == {
        "example.com/pass": "",
        "example.com/pass/inner": "inner",
    }
    assert facts.listed_test_files(packages) == {"sum_test.go", "inner/inner_test.go"}
    assert facts.harness_paths(tree, packages) == {"go.mod"}
