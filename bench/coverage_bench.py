"""Patch coverage's cost: head's suite through the sandbox with the tracer on its changed code
files against the same run without it, as a median ratio over alternating pairs in one run.

    python -m bench.coverage_bench [--pairs 7] [--rows V1,V2]

The suites are real: releases of the history corpus (tests/corpus/manifest.json, pinned by
sha256), head's tree run with verify-pr's own command for its runner; the measured files are
every code file the release changed (the whole of each changed file, more than a PR's lines:
the tracer's cost depends on the files, not on the lines), or the row's own files when the
release changed none. Target: <= 1.2 (issue 26.1).
Not a test: the figures go in the README's table with the machine they ran on.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.compare_bench import MANIFEST, NODE, _git, history_repo
from bench.sandbox_bench import PYTHON, pairs
from verify_pr.runners.base import Runner
from verify_pr.verify.coverage import patch as patch_coverage
from verify_pr.verify.runs.suite import SuitePlan, plan_detected, run_suite

# (row, history entry, image, the files measured: () for the code files the release changed)
ROWS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("V1", "parse-1.20.2", PYTHON, ()),
    ("V2", "jest-when-3.5.2", NODE, ()),
    # the corpus's vitest release changed no code file (a test and package.json): the
    # library its suite tests stands in
    ("V3", "tanstack-store-0.4.1", NODE, ("src/index.ts",)),
)


def _code_files(repo: Path, base: str, head: str, runner: Runner | None, tree: Path) -> list[str]:
    changed = _git(repo, "diff", "--name-only", base, head).splitlines()
    everything = {p: tuple(range(1, 100_000)) for p in changed if "test" not in p}
    return patch_coverage.Session(runner, tree, everything).files


def _timed(tree: Path, plan: SuitePlan, image: str, want_coverage: bool) -> float:
    start = time.perf_counter()
    outcome = run_suite(tree, plan, image, 300, 1 << 20)
    elapsed = time.perf_counter() - start
    got = outcome.run.coverage is not None
    if got != want_coverage or outcome.report is None:
        raise SystemExit(f"{plan.runner}: coverage {got}, report {outcome.report is not None}")
    return elapsed


def measure(row: str, entry: dict[str, Any], image: str, n: int, only: tuple[str, ...]) -> str:
    root = Path(tempfile.mkdtemp(prefix="vpr-bench-coverage-"))
    repo, base, head, tree = history_repo(root, entry)
    plan = plan_detected(tree, entry["runner"])
    files = list(only) or _code_files(repo, base, head, plan.runner, tree)
    session = patch_coverage.Session(plan.runner, tree, dict.fromkeys(files, (1,)))
    traced = session.plan(plan)
    if traced.coverage_path is None:
        raise SystemExit(f"{row}: {plan.runner} is not measured ({session.reason})")
    x, y, ratio = pairs(
        n,
        lambda: _timed(tree, traced, image, True),
        lambda: _timed(tree, plan, image, False),
    )
    name = f"{entry['head']['name']} {entry['head']['version']}"
    shown = ", ".join(files)
    return (
        f"| {row} {name} {plan.runner} suite, tracer on {shown} vs the same run without "
        f"| {x:.2f} s | {y:.2f} s | {ratio:.2f} | <= 1.2 |"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--rows", default=",".join(r[0] for r in ROWS))
    args = parser.parse_args()
    wanted = set(args.rows.split(","))
    history = {e["id"]: e for e in json.loads(MANIFEST.read_text())["history"]}
    for row, entry_id, image, only in ROWS:
        if row in wanted:
            print(measure(row, history[entry_id], image, args.pairs, only), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
