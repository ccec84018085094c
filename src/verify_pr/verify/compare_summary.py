"""compare_summary.md for a comparison: the verifier's lists, shown by ``verify_pr.render``.

The tests that stand against the PR (regressions, removed, newly skipped...) are computed here,
on the verify side (``verify.compare.findings``); the text is the renderer's.
"""

from __future__ import annotations

from verify_pr.models.compare import CompareResult
from verify_pr.render.compare_summary import Listed, compare_summary_markdown
from verify_pr.verify.compare import findings
from verify_pr.verify.testcases import statuses


def listed(result: CompareResult) -> Listed:
    """What stands against the PR, titled, in the order the summary shows it."""
    own = statuses(result.base_own)
    found = findings(result.transitions, statuses(result.base), statuses(result.head), own)
    return (
        ("PASS_TO_FAIL (regressions)", found.regressed),
        ("Test changed, not the code", list(result.test_changed)),
        ("Newly skipped", found.newly_skipped),
        ("Newly expected to fail", found.newly_expected),
        ("Flaky", list(result.flaky)),
        (
            "REMOVED: base tests gone on head (deleted or renamed by the PR; the counts "
            "below pair only the PR's tests)",
            found.gone,
        ),
    )


def summary_markdown(result: CompareResult) -> str:
    """Ten seconds for a maintainer: the proof first, then what stands against it, counts."""
    return compare_summary_markdown(result, listed(result))
