"""Every run of a compare made alike: planned by base's runner, run under the same limits.

The runner is detected once, on base's tree (the PR cannot choose what judges it), and every
tree's plan is that runner's plan for the tree (the command may depend on it: pytest's src
layout, the import probes) with the compare's own words (``Runner.compare_args``). The suite's
settings are read here, once, from the ``SuiteSettings`` the entry built: the stages get
plans and a way to run them, never the settings again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verify_pr.errors import InputRefused
from verify_pr.runners.base import Runner
from verify_pr.verify.runs.parallel import SandboxPool
from verify_pr.verify.runs.suite import (
    SuiteOutcome,
    SuitePlan,
    plan_custom,
    plan_for,
    run_suite,
)
from verify_pr.verify.settings import SuiteSettings

# one pool for every sandbox of a compare: each job a tree and its plan, run by ``Planner.run``
ComparePool = SandboxPool[tuple[Path, SuitePlan], SuiteOutcome]


@dataclass(frozen=True)
class Planner:
    """How each run of one compare is planned and run: ``runner`` is base's (None for the
    caller's own command, run as given on every tree)."""

    suite: SuiteSettings
    runner: Runner | None

    @classmethod
    def on_base(cls, suite: SuiteSettings, base_tree: Path) -> Planner:
        """The planner of a compare whose base tree is ``base_tree``: its runner detected
        there once; refused when compare cannot judge that runner's suites yet."""
        from verify_pr.runners.detect import detect_runner

        if suite.command is not None:
            return cls(suite, None)
        runner = detect_runner(base_tree, suite.runner)
        if not runner.compares:
            # a runner whose selection, harness and re-runs are not wired (none today)
            raise InputRefused(
                f"compare does not support the {runner.name} runner yet: use verify-pr run"
            )
        return cls(suite, runner)

    def plan(self, tree: Path) -> SuitePlan:
        """The plan of a run of ``tree``: the same runner and words on every side."""
        if self.runner is None:
            return plan_custom(self.suite.command or "", self.suite.report_format or "")
        # the same words on every run keep the runs alike (pytest: a new test file that cannot
        # import on base's code must not stop the others); the import probe's packages stay
        # with the plan: without them the run never checks where they resolved (a package the
        # PR turns into a namespace package imports the image's copy on head)
        return plan_for(tree, self.runner).adding(self.runner.compare_args)

    def pool(self) -> ComparePool:
        """One pool for every sandbox of the compare, each run by :meth:`run`: as many at once
        as the machine holds under the compare's resources (``parallel.pool_width``)."""
        return SandboxPool(self.run, self.suite.limits.resources)

    def run(self, job: tuple[Path, SuitePlan]) -> SuiteOutcome:
        """One run in its sandbox, under the compare's image and limits."""
        tree, plan = job
        limits = self.suite.limits
        image = self.suite.image
        return run_suite(tree, plan, image, limits.timeout_s, limits.max_output, limits.resources)
