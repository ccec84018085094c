"""What each verdict means, said once: ``match`` over the enums, ended by ``assert_never``.

A new verdict is a mypy error here until it has its texts.
"""

from __future__ import annotations

from typing import assert_never

from verify_pr.models.compare import CompareVerdict
from verify_pr.models.verdict import Verdict

NOTHING_TO_PROVE_CLAUSE = "no test goes from failing to passing; nothing that passed broke"


def label(verdict: Verdict | CompareVerdict) -> str:
    """The verdict as people read it: ``NOT_PROVEN`` -> ``NOT PROVEN``."""
    return verdict.value.replace("_", " ")


def run_meaning(verdict: Verdict) -> str:
    """One clause (no capital, no full stop): what a run's verdict means."""
    match verdict:
        case Verdict.PASS:
            return "the suite ran in the sandbox and its report shows no failure"
        case Verdict.FAIL:
            return "the suite ran in the sandbox and its report shows failing tests"
        case Verdict.NOT_PROVEN:
            return "the run does not support a verdict either way"
        case Verdict.BLOCKED:
            return "the sandbox could not run; this says nothing about the PR"
        case _ as unreachable:
            assert_never(unreachable)


def run_check_meaning(verdict: Verdict) -> str:
    """The check run's paragraph: the meaning, and what a maintainer does about it."""
    match verdict:
        case Verdict.PASS | Verdict.FAIL:
            return _sentence(run_meaning(verdict))
        case Verdict.NOT_PROVEN:
            return (
                f"{label(verdict)}: {run_meaning(verdict)} (no report, a crash, a timeout, "
                "missing dependencies, no tests...). This is not a pass: the check is neutral, "
                "which a required check counts as passing, so review the reasons before merging."
            )
        case Verdict.BLOCKED:
            return (
                f"{label(verdict)}: the sandbox could not run (the image, the daemon or the "
                "runner failed). This says nothing about the PR; a maintainer has to fix the "
                "verify job and re-run it."
            )
        case _ as unreachable:
            assert_never(unreachable)


def compare_meaning(verdict: CompareVerdict) -> str:
    """One clause (no capital, no full stop): what a comparison's verdict means."""
    match verdict:
        case CompareVerdict.VERIFIED:
            return (
                "a test fails on base's code with the PR's tests and passes on the PR's code "
                "(head merged into base), each re-run by id without the rest of the suite; none "
                "regressed, none was removed, skipped or marked expected to fail, and every run "
                "completed with a clean report. The PR's code still ran inside its own test "
                "process: a PR that forges its own results is not caught"
            )
        case CompareVerdict.NOTHING_TO_PROVE:
            return (
                f"nothing to prove: {NOTHING_TO_PROVE_CLAUSE}. Every test that passes on "
                "base's code passes on the PR's code, none was removed, skipped or marked "
                "expected to fail, the PR changes no test or harness file of base, and every "
                "run completed with a clean report. This proves no fix, and the PR's code "
                "still ran inside its own test process"
            )
        case CompareVerdict.NOT_PROVEN:
            return "base against head does not show that the PR works"
        case CompareVerdict.BLOCKED:
            return "a sandbox could not run; this says nothing about the PR"
        case _ as unreachable:
            assert_never(unreachable)


def compare_title(verdict: CompareVerdict) -> str:
    """The headline of ``compare_summary.md``."""
    match verdict:
        case CompareVerdict.VERIFIED:
            return f"{label(verdict)}: the PR's code turns failing tests green, and breaks none"
        case CompareVerdict.NOTHING_TO_PROVE:
            return compare_check_title(verdict)
        case CompareVerdict.NOT_PROVEN | CompareVerdict.BLOCKED:
            return f"{label(verdict)}: {compare_meaning(verdict)}"
        case _ as unreachable:
            assert_never(unreachable)


def compare_check_title(verdict: CompareVerdict) -> str:
    """The check run's title for a trusted comparison: the verdict, and for NOTHING TO PROVE
    what it means (a success check must never read as a proof)."""
    match verdict:
        case CompareVerdict.NOTHING_TO_PROVE:
            return f"{label(verdict)}: {NOTHING_TO_PROVE_CLAUSE}"
        case CompareVerdict.VERIFIED | CompareVerdict.NOT_PROVEN | CompareVerdict.BLOCKED:
            return label(verdict)
        case _ as unreachable:
            assert_never(unreachable)


def compare_check_meaning(verdict: CompareVerdict) -> str:
    """The check run's paragraph for a comparison."""
    match verdict:
        case CompareVerdict.VERIFIED:
            return (
                "VERIFIED: the suite ran in the sandbox on the PR's base and on its head; at "
                "least one test fails on base's code with the PR's tests and passes on head, "
                "each again when re-run by id; none regressed, none was removed, newly skipped "
                "or newly expected to fail, and every run completed with a clean report."
            )
        case CompareVerdict.NOTHING_TO_PROVE:
            return (
                f"{label(verdict)}: {NOTHING_TO_PROVE_CLAUSE}. The suite ran in the sandbox on "
                "the PR's base and on its head and passes on both; every test that passed on "
                "base's code passes on head, none was removed, newly skipped or newly expected "
                "to fail, and the PR changes no test or harness file of base. The check "
                "succeeds because the PR broke nothing the suite can see; it is not VERIFIED: "
                "the PR proves no fix (a docs change, a refactor). To require a proof, make the "
                "verify job fail on NOTHING_TO_PROVE (the action's fail-on input)."
            )
        case CompareVerdict.NOT_PROVEN:
            return (
                f"{label(verdict)}: base against head does not show that the PR fixes anything "
                "(no test turns green, a regression, removed or skipped tests, a changed "
                "harness, an incomplete run...). This is not a pass: the check is neutral, which "
                "a required check counts as passing, so review the reasons before merging."
            )
        case CompareVerdict.BLOCKED:
            return (
                f"{label(verdict)}: a sandbox could not run (the image, the daemon or the runner "
                "failed). This says nothing about the PR; a maintainer has to fix the verify job "
                "and re-run it."
            )
        case _ as unreachable:
            assert_never(unreachable)


def _sentence(clause: str) -> str:
    return clause[:1].upper() + clause[1:] + "."
