"""The lists compare_summary.md shows against the PR, from the findings the verdict used.

What stands against the PR (regressions, removed, newly skipped...) is computed once, when the
runs are paired (``pairing.Pairing.findings``), and the verdict's rules read it; here it is only
titled and ordered, and the text is the renderer's (``render.compare_markdown``).
"""

from __future__ import annotations

from verify_pr.models.compare import CompareResult
from verify_pr.render.compare_markdown import compare_summary_markdown
from verify_pr.render.parts import Listed
from verify_pr.verify.pairing.pairing import Findings


def listed(result: CompareResult, found: Findings) -> Listed:
    """What stands against the PR, titled, in the order the summary shows it."""
    return (
        ("PASS_TO_FAIL (regressions)", found.regressed),
        ("Test changed, not the code", list(result.test_changed)),
        ("Newly skipped", found.newly_skipped),
        ("Newly expected to fail", found.newly_expected),
        ("Flaky", list(result.flaky)),
        (
            "REMOVED: base tests gone on head (deleted or renamed by the PR; the counts "
            "below pair only the PR's tests)",
            [i for i in found.gone if i not in {t.id for t in result.removed_tests}],
        ),
    )


def summary_markdown(result: CompareResult, found: Findings) -> str:
    """Ten seconds for a maintainer: the proof first, then what stands against it, counts."""
    return compare_summary_markdown(result, listed(result, found))
