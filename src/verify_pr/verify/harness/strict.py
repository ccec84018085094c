"""The harness stage of a compare: the scan of what the PR changes that judges it, and all
that ``--strict-harness`` makes of it, read once here.

Strict, every run's tree takes base's version of each harness file the PR changes
(``Harness.from_base``: the trees stage copies them, before the trees are settled and again
when before is rebuilt), and the closure's notes are no reasons (base's versions ran). The
facts the decision reads (``HarnessFacts``) are made here too, once head has run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from verify_pr.runners.base import Runner
from verify_pr.verify.harness import closure
from verify_pr.verify.harness.facts import HarnessFacts
from verify_pr.verify.harness.names import harness_files
from verify_pr.verify.runs.expected_failures import added_markers
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan, tamper_signals
from verify_pr.verify.trees.export import Exported


@dataclass(frozen=True)
class Harness:
    """What the PR changes that judges it, and whether head's tests run with base's."""

    scan: closure.HarnessScan
    strict: bool  # --strict-harness

    @property
    def from_base(self) -> tuple[str, ...]:
        """The paths every run's tree takes from base: the harness files when strict."""
        return self.scan.paths if self.strict else ()

    def facts(
        self, trees: tuple[Path, Path], plan: SuitePlan, head: SuiteOutcome, tests: Sequence[str]
    ) -> HarnessFacts:
        """The decision's harness facts, once ``head`` has run: with the tamper signals of
        base's own tree and the expected-failure markers the PR adds to ``tests``."""
        base, after = trees
        return HarnessFacts(
            files=self.scan.paths,
            strict=self.strict,
            notes=tuple(self.scan.reasons(self.strict)),
            # the startup modules the head run read from the image, checked against base's
            base_tamper=tuple(tamper_signals(base, plan, head.run.output)),
            markers=tuple(added_markers(base, after, list(tests))),
        )


def judge_harness(
    trees: Exported, is_test: Callable[[str], bool], runner: Runner | None, strict: bool
) -> Harness:
    """The harness paths the PR changes (``closure.scan``, with what base's ``runner`` reads
    from the files as harness: go's test files defining TestMain) over both exports."""
    read = {} if runner is None else runner.harness_paths((trees.base, trees.after))
    scan = closure.scan(trees.base, trees.after, trees.changed, trees.renames, is_test, read)
    return Harness(scan, strict)


def named_only(changed: Sequence[str], strict: bool) -> HarnessFacts:
    """The harness facts of a compare that ran nothing: the files by name alone."""
    return HarnessFacts(tuple(harness_files(changed)), strict)
