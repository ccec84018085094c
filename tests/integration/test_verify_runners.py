"""Every fixture project through ``verify-pr run`` (a subprocess, as a user runs it) in its
runner's image: verdict, exit code, per-test counts, and the reasons that must be there."""

from __future__ import annotations

import json
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from tests.conftest import _docker_problem, require_docker
from tests.integration.helpers import IMAGES, PROJECTS, Counts, Run, counts, verify_pr
from verify_pr.exit_codes import RunExit

TIMEOUT_S = 8


@dataclass(frozen=True)
class Expect:
    verdict: str
    counts: Counts
    reason: str | None = None  # a substring one of the reasons must hold


MISSING = "the image lacks the module(s) 'vpr_absent_dependency'"
MISSING_JS = "the image lacks the module(s) 'vpr-absent-dependency'"

EXPECTED: dict[str, Expect] = {
    "pytest/pass": Expect("PASS", (2, 2, 0, 0, 0)),
    "pytest/fail": Expect("FAIL", (3, 1, 2, 0, 0)),
    # the tree's own import fails (a name it lacks): the PR's error
    "pytest/collection_error": Expect("FAIL", (1, 0, 0, 1, 0), "cannot import name"),
    # a module neither the tree nor the image holds: the image's gap, named (issue 23 item 3;
    # the controls are in test_missing_module.py)
    "pytest/missing_module": Expect("NOT_PROVEN", (1, 0, 0, 1, 0), MISSING),
    "pytest/crash": Expect("NOT_PROVEN", None, "no report"),
    "pytest/interrupted": Expect("NOT_PROVEN", (2, 2, 0, 0, 0), "testcase without a name"),
    "pytest/no_tests": Expect("NOT_PROVEN", (0, 0, 0, 0, 0), "no testcases"),
    # three skips and an xfail (an expected failure, not a skip): nothing executed
    "pytest/skipped_only": Expect("NOT_PROVEN", (4, 0, 0, 0, 3), "no test was executed"),
    "pytest/teardown_error": Expect("FAIL", (3, 0, 1, 2, 0)),
    "pytest/unicode": Expect("FAIL", (8, 7, 1, 0, 0)),
    "pytest/timeout": Expect("NOT_PROVEN", None, "timed out"),
    # a conftest hook turns the failure into a pass: the PASS must carry the tamper reason
    "pytest/forged": Expect("PASS", (2, 2, 0, 0, 0), "conftest.py file(s)"),
    "pytest/redirected": Expect("NOT_PROVEN", None, "-p no:junitxml"),
    # an xfail and a non-strict xpass: neither a pass nor a skip (expected_failure 2)
    "pytest/expected_failure": Expect("PASS", (3, 1, 0, 0, 0)),
    "jest/pass": Expect("PASS", (3, 3, 0, 0, 0)),
    "jest/expected_failure": Expect("PASS", (2, 1, 0, 0, 0)),  # test.failing
    "jest/fail": Expect("FAIL", (3, 1, 2, 0, 0)),
    "jest/load_error": Expect("FAIL", (2, 1, 0, 1, 0)),  # a relative require: the tree's file
    "jest/missing_module": Expect("NOT_PROVEN", (2, 1, 0, 1, 0), MISSING_JS),
    "jest/no_tests": Expect("NOT_PROVEN", None, "no report"),
    "jest/skipped_only": Expect("NOT_PROVEN", (3, 0, 0, 0, 3), "no test was executed"),
    "jest/unicode": Expect("FAIL", (9, 8, 1, 0, 0)),
    "jest/crash": Expect("NOT_PROVEN", None, "no report"),
    "jest/timeout": Expect("NOT_PROVEN", None, "timed out"),
    # the processor relabels the failure "passed" but keeps its failure message: counted failed
    "jest/forged": Expect("FAIL", (2, 1, 1, 0, 0), "testResultsProcessor"),
    "jest/exit_code": Expect("FAIL", (2, 1, 1, 0, 0), "exited 0 despite failures"),
    "vitest/pass": Expect("PASS", (3, 3, 0, 0, 0)),
    "vitest/expected_failure": Expect("PASS", (2, 1, 0, 0, 0)),  # test.fails
    "vitest/fail": Expect("FAIL", (3, 1, 2, 0, 0)),
    "vitest/load_error": Expect("FAIL", (2, 1, 0, 1, 0)),
    "vitest/missing_module": Expect("NOT_PROVEN", (2, 1, 0, 1, 0), MISSING_JS),
    "vitest/no_tests": Expect("NOT_PROVEN", (0, 0, 0, 0, 0), "no testcases"),
    "vitest/skipped_only": Expect("NOT_PROVEN", (3, 0, 0, 0, 3), "no test was executed"),
    "vitest/unhandled_error": Expect("NOT_PROVEN", (1, 1, 0, 0, 0), "disagree"),
    "vitest/unicode": Expect("FAIL", (9, 8, 1, 0, 0)),
    "vitest/crash": Expect("FAIL", (3, 2, 1, 0, 0)),
    "vitest/timeout": Expect("NOT_PROVEN", None, "timed out"),
    # In the test image vite cannot bundle a JS config (/node_modules is read-only), so these
    # end with no report; on any layout the config keys are named as reasons.
    # The config runs in vitest's process and rewrites the report at exit. Its forged results
    # lack the expected-failure recorder's flags, so no pass is trusted; a forger who writes
    # them too (the key is no secret) still gets a PASS that only the tamper reason exposes
    # (the residual base-against-head with base's harness closes).
    "vitest/forged": Expect("NOT_PROVEN", (2, 2, 0, 0, 0), "expected failures not recorded"),
    # vitest 3.2 keeps the CLI's --outputFile.json over the config's: our path wins.
    "vitest/redirected": Expect("PASS", (1, 1, 0, 0, 0), "outputFile"),
    "bun/pass": Expect("PASS", (3, 3, 0, 0, 0)),
    "bun/expected_failure": Expect("PASS", (2, 1, 0, 0, 0)),  # test.failing
    "bun/fail": Expect("FAIL", (3, 1, 2, 0, 0)),
    "bun/load_error": Expect("NOT_PROVEN", (1, 1, 0, 0, 0), "disagree"),
    "bun/no_tests": Expect("NOT_PROVEN", None, "no report"),
    "bun/skipped_only": Expect("NOT_PROVEN", (3, 0, 0, 0, 3), "no test was executed"),
    "bun/unicode": Expect("FAIL", (9, 8, 1, 0, 0)),
    "bun/crash": Expect("NOT_PROVEN", None, "no report"),
    "bun/retry": Expect("FAIL", (2, 1, 1, 0, 0)),
    "bun/timeout": Expect("NOT_PROVEN", None, "timed out"),
    "bun/forged": Expect("FAIL", (2, 1, 1, 0, 0), "preload"),
    "bun/redirected": Expect("NOT_PROVEN", None, "[test.reporter]"),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Future[Run]]:
    """Start every fixture whose image is present, a few at a time (each test waits on its
    own); a missing image fails or skips in the test itself via require_docker."""
    root = tmp_path_factory.mktemp("verify-runs")
    pool = ThreadPoolExecutor(max_workers=3)
    futures: dict[str, Future[Run]] = {}
    present = {image: _docker_problem(image) is None for image in set(IMAGES.values())}
    for key in sorted(EXPECTED, key=lambda k: k.endswith("/timeout")):
        runner, case = key.split("/")
        if not present[IMAGES[runner]]:
            continue
        seconds = TIMEOUT_S if case == "timeout" else 120
        out = root / key.replace("/", "-")
        futures[key] = pool.submit(
            verify_pr,
            PROJECTS / key,
            IMAGES[runner],
            out,
            "--runner",
            runner,
            "--timeout",
            str(seconds),
        )
    pool.shutdown(wait=False)
    return futures


def test_every_fixture_project_has_an_expectation() -> None:
    on_disk = {f"{p.parent.name}/{p.name}" for p in PROJECTS.glob("*/*") if p.is_dir()}
    assert on_disk == set(EXPECTED)


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_fixture_verdict(key: str, runs: dict[str, Future[Run]]) -> None:
    runner = key.split("/")[0]
    require_docker(IMAGES[runner])
    run = runs[key].result(timeout=600)
    expect = EXPECTED[key]
    v = run.verdict
    assert v, run.stderr
    reasons = "\n".join(v["reasons"])
    assert (v["verdict"], counts(v)) == (expect.verdict, expect.counts), reasons
    assert run.code == RunExit[expect.verdict], run.stderr
    assert v["runner"] == runner
    assert run.stdout.splitlines()[0].startswith(expect.verdict.replace("_", " "))
    if expect.reason is not None:
        assert expect.reason in reasons
    if v["totals"] is not None:
        assert len(v["testcases"]) == v["totals"]["total"]
    if expect.verdict == "PASS" and key.endswith("/forged"):
        assert "the repo changes its own harness" in reasons
    if key.endswith("/timeout"):
        assert v["sandbox"]["status"] == "TIMEOUT"
        assert v["sandbox"]["timeout_s"] == TIMEOUT_S


@pytest.mark.slow
@pytest.mark.parametrize("runner", sorted(IMAGES))
def test_unicode_and_control_chars_in_names(runner: str, runs: dict[str, Future[Run]]) -> None:
    require_docker(IMAGES[runner])
    run = runs[f"{runner}/unicode"].result(timeout=600)
    names = [c["name"] for c in run.verdict["testcases"]]
    text = "\n".join(names)
    assert "日本語" in text
    assert not any(ch in text for ch in "\x1b\x07\x00")
    assert "\x1b" not in run.stdout
    failing = [c for c in run.verdict["testcases"] if c["status"] == "failed"]
    assert len(failing) == 1
    assert all(c["file"] and not c["file"].startswith("/") for c in run.verdict["testcases"])


# Each runner writes the marked test as it sees it; verify-pr's status is its own.
MARKED = {
    "pytest": ({"test_plain"}, {"test_known_bug", "test_maybe_fixed"}),
    "jest": ({"plain"}, {"known bug"}),
    "vitest": ({"plain"}, {"known bug"}),
    "bun": ({"plain"}, {"known bug"}),
}


@pytest.mark.slow
@pytest.mark.parametrize("runner", sorted(IMAGES))
def test_expected_failures_are_a_status_of_their_own(
    runner: str, runs: dict[str, Future[Run]]
) -> None:
    require_docker(IMAGES[runner])
    run = runs[f"{runner}/expected_failure"].result(timeout=600)
    by_status: dict[str, set[str]] = {}
    for case in run.verdict["testcases"]:
        by_status.setdefault(case["status"], set()).add(case["name"])
    plain, marked = MARKED[runner]
    # positive control: the unmarked test in the same file is still a pass
    assert by_status == {"passed": plain, "expected-failure": marked}, by_status
    assert run.verdict["totals"]["expected_failure"] == len(marked)
    # the runner's own report calls the marked tests passing (or skipped, pytest's xfail): the
    # status is verify-pr's reading, not the report's word
    report = (run.out / "report.txt").read_text(encoding="utf-8")
    if runner in ("jest", "vitest"):
        statuses = {
            a["title"]: a["status"]
            for suite in json.loads(report)["testResults"]
            for a in suite["assertionResults"]
        }
        assert statuses == dict.fromkeys(plain | marked, "passed")
    else:
        assert all(f'name="{name}"' in report for name in plain | marked)
