"""A module neither the tree nor the image holds is NOT PROVEN with the module named (issue 23,
item 3: tests/fixtures/projects/<runner>/missing_module, run in test_verify_runners.py). Here,
on real containers, the controls of that rule, built from the same project in a temporary copy:

- held: the same project with the module present (in the image: the import names a package the
  image holds; for pytest also in the tree): the suite loads and PASSes, so the NOT PROVEN came
  from the missing module and nothing else (a node_modules in the tree is itself a reason for
  NOT PROVEN: the runner would resolve its code from there);
- beside a failure: the same project plus a test that runs and fails: FAIL, so a missing
  import in one file cannot hide another's failure.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import _docker_problem, require_docker
from tests.integration.helpers import (
    IMAGES,
    PROJECTS,
    Counts,
    Run,
    counts,
    verify_pr,
)

MODULE = "vpr_absent_dependency"
PACKAGE = "vpr-absent-dependency"


def _python_held(tree: Path) -> None:
    (tree / f"{MODULE}.py").write_text("")


def _in_image(tree: Path, test_file: str, held: str) -> None:
    path = tree / test_file
    text = path.read_text()
    assert MODULE in text or PACKAGE in text
    path.write_text(text.replace(MODULE, held).replace(PACKAGE, held))


def _python_failure(tree: Path) -> None:
    # pytest stops after a collection error unless told to go on: the failing test must run
    (tree / "pytest.ini").write_text("[pytest]\naddopts = --continue-on-collection-errors\n")
    (tree / "test_real.py").write_text("def test_real():\n    assert 1 == 2\n")


def _node_failure(tree: Path, runner: str) -> None:
    head = 'import { expect, test } from "vitest";\n' if runner == "vitest" else ""
    (tree / "real.test.js").write_text(head + 'test("real", () => {\n  expect(1).toBe(2);\n});\n')


Variant = tuple[Callable[[Path], None], str, Counts]
VARIANTS: dict[str, Variant] = {
    "pytest/held": (_python_held, "PASS", (2, 2, 0, 0, 0)),
    "pytest/held_by_the_image": (
        lambda t: _in_image(t, "test_dep.py", "pluggy"),
        "PASS",
        (2, 2, 0, 0, 0),
    ),
    "pytest/beside_a_failure": (_python_failure, "FAIL", (3, 1, 1, 1, 0)),
    "jest/held_by_the_image": (
        lambda t: _in_image(t, "dep.test.js", "ms"),
        "PASS",
        (2, 2, 0, 0, 0),
    ),
    "jest/beside_a_failure": (lambda t: _node_failure(t, "jest"), "FAIL", (3, 1, 1, 1, 0)),
    "vitest/held_by_the_image": (
        lambda t: _in_image(t, "dep.test.js", "ms"),
        "PASS",
        (2, 2, 0, 0, 0),
    ),
    "vitest/beside_a_failure": (lambda t: _node_failure(t, "vitest"), "FAIL", (3, 1, 1, 1, 0)),
}


@pytest.fixture(scope="module")
def variant_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Future[Run]]:
    root = tmp_path_factory.mktemp("missing-module")
    pool = ThreadPoolExecutor(max_workers=3)
    futures: dict[str, Future[Run]] = {}
    for key, (change, _, _) in VARIANTS.items():
        runner = key.split("/")[0]
        if _docker_problem(IMAGES[runner]) is not None:
            continue
        tree = root / key.replace("/", "-") / "repo"
        shutil.copytree(PROJECTS / runner / "missing_module", tree)
        change(tree)
        futures[key] = pool.submit(
            verify_pr, tree, IMAGES[runner], tree.parent / "out", "--runner", runner
        )
    pool.shutdown(wait=False)
    return futures


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_the_controls_of_a_missing_module(key: str, variant_runs: dict[str, Future[Run]]) -> None:
    runner = key.split("/")[0]
    require_docker(IMAGES[runner])
    run = variant_runs[key].result(timeout=600)
    _, verdict, expected = VARIANTS[key]
    reasons = "\n".join(run.verdict.get("reasons", []))
    assert (run.verdict.get("verdict"), counts(run.verdict)) == (verdict, expected), (
        reasons or run.stderr
    )
    assert "the image lacks the module" not in reasons
