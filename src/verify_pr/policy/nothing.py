"""NOTHING TO PROVE's own rules: "broke nothing", said honestly (``verify.nothing`` tells why
each rule is there). The verifier asks them of its runs; the publish job of the artifact's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from verify_pr.models.report import TestStatus
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.policy.cases import shown as _shown
from verify_pr.policy.cases import worst_by_id

# The changed files that are neither test nor code run in the PR's version on both sides, so a
# test that reads one (a tolerance, a list of cases) is weakened on both; only documentation,
# which no test is expected to read, is let through (a doctest in it is a placed test).
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".adoc")


def gaps(
    before: VerdictFile,
    head: VerdictFile,
    harness_changed: Sequence[str],
    base_own_ran: bool,
    with_tests: Sequence[str] = (),
    others: Sequence[str] = (),
    statuses: tuple[Mapping[str, TestStatus], Mapping[str, TestStatus]] | None = None,
) -> list[str]:
    """Why "broke nothing" cannot be claimed (empty: NOTHING TO PROVE). ``before``: base's
    code with the PR's tests, load failures expanded, as paired with ``head``; ``with_tests``:
    paths the PR changes that hold tests and are not new test modules; ``others``: the
    changed paths that are neither test nor code; ``statuses``: each run's every result (a
    listing's, ``policy.whole``) where its testcases are not all of them."""
    was, now = statuses or (worst_by_id(before.testcases), worst_by_id(head.testcases))
    found = []
    if before.verdict is not Verdict.PASS or head.verdict is not Verdict.PASS:
        found.append(
            f"the suite does not pass on both sides (base's code: {before.verdict.value}, "
            f"head: {head.verdict.value}): it cannot show that the PR broke nothing"
        )
    broke = sorted(i for i, s in was.items() if s is TestStatus.PASSED and now.get(i) is not s)
    if broke:
        found.append(
            f"{len(broke)} test(s) pass on base's code and do not pass on head: {_shown(broke)}"
        )
    if base_own_ran:
        found.append(
            "the PR changes test paths of base (edits or deletes a test, or adds a conftest or "
            "data file beside them): a test changed with the code cannot show that it broke "
            "nothing"
        )
    if harness_changed:
        found.append(
            f"the PR changes {len(harness_changed)} harness file(s) ({_shown(harness_changed)}): "
            "the suite cannot show that it broke nothing"
        )
    held = sorted(set(with_tests))
    if held:
        found.append(
            f"the PR changes files that hold tests ({_shown(held)}): tests changed with the "
            "code cannot show that it broke nothing"
        )
    read = [p for p in others if PurePosixPath(p).suffix.lower() not in DOC_SUFFIXES]
    if read:
        found.append(
            f"the PR changes {len(read)} file(s) that are neither test nor code ({_shown(read)}), "
            "which the tests may read (data, configuration) in the PR's version on both sides: "
            f"only documentation ({', '.join(DOC_SUFFIXES)}) leaves nothing to prove"
        )
    return found
