"""Pick the runner for a tree: deterministic, and refusing to guess when evidence ties."""

from __future__ import annotations

from pathlib import Path

from verify_pr.contract import AUTO, RunnerName
from verify_pr.errors import ConfigError
from verify_pr.reports._common import DEFAULT_TREE_ROOT
from verify_pr.runners.base import Detection, Runner
from verify_pr.runners.bun.runner import BunRunner
from verify_pr.runners.go.runner import GoRunner
from verify_pr.runners.jest.runner import JestRunner
from verify_pr.runners.pytest.runner import PytestRunner
from verify_pr.runners.vitest.runner import VitestRunner


def all_runners(tree_root: str = DEFAULT_TREE_ROOT) -> tuple[Runner, ...]:
    return (
        PytestRunner(tree_root),
        JestRunner(tree_root),
        VitestRunner(tree_root),
        BunRunner(tree_root),
        GoRunner(tree_root),
    )


def detections(tree: Path, tree_root: str = DEFAULT_TREE_ROOT) -> list[Detection]:
    """Every runner's strongest evidence, strongest first (ties in RunnerName order)."""
    found = [d for r in all_runners(tree_root) if (d := r.detect(tree)) is not None]
    return sorted(found, key=lambda d: (d.evidence.rank, list(RunnerName).index(d.runner)))


def detect_runner(tree: Path, choice: str = AUTO, tree_root: str = DEFAULT_TREE_ROOT) -> Runner:
    """The runner named by ``choice``, or with ``auto`` the one with the strongest evidence
    (scripts.test > config file > dependency > pytest test files: test_*.py or *_test.py at the
    top or in tests/ or test/); a tie at the strongest level is refused."""
    runners = {r.name: r for r in all_runners(tree_root)}
    if choice != AUTO:
        if choice not in runners:
            raise ConfigError(
                f"unknown runner {choice[:40]!r}",
                hint=f"use one of: {AUTO}, {', '.join(RunnerName)}",
            )
        return runners[RunnerName(choice)]
    found = detections(tree, tree_root)
    if not found:
        raise ConfigError(
            "no test runner detected "
            "(no scripts.test, runner config, runner dependency or test_*.py file)",
            hint=f"set the runner explicitly: {', '.join(RunnerName)}",
        )
    best = [d for d in found if d.evidence is found[0].evidence]
    if len(best) > 1:
        listed = "; ".join(f"{d.runner} ({d.source})" for d in best)
        raise ConfigError(
            f"ambiguous test runner: {found[0].evidence} points at {listed}",
            hint="set the runner explicitly",
        )
    return runners[best[0].runner]
