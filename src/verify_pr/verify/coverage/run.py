"""Patch coverage for ``verify-pr run --diff-base REV``: the changed lines of one run.

The changed lines are those the work tree's HEAD commit (what the run runs) adds or changes
against ``REV``, read by the hardened git (never the tree's own config or hooks). The code
files are chosen by the same split compare uses (``testpaths.rule_for``/``split``), and the
measuring is compare's ``coverage.patch.Session`` with no proof. When the figures could be
wrong (``REV`` not in the repository, the measured files changed in the work tree, git
failing), the run is "not measured" with why, never a guess. Nothing here feeds a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verify_pr.errors import InputRefused, VerifyPrError
from verify_pr.models.coverage import NOTE_MAX_CHARS, PatchCoverage
from verify_pr.runners.base import Runner
from verify_pr.verify.coverage.patch import Session
from verify_pr.verify.runs.suite import SuiteOutcome, SuitePlan

DIFF_BASE_FLAG = "--diff-base"


def check_diff_base(repo: Path, rev: str) -> str:
    """``rev``'s text (a branch, a tag, a short or full id) and ``repo`` a git work tree, or
    refused before anything runs."""
    from verify_pr.git.hardened import check_ref
    from verify_pr.git.source import locate

    check_ref(rev, DIFF_BASE_FLAG)
    try:
        dirs = locate(repo)
    except VerifyPrError:
        dirs = None
    if dirs is None or dirs.work_tree is None or dirs.work_tree != repo.resolve():
        raise InputRefused(f"{DIFF_BASE_FLAG} needs --repo to be the top of a git work tree")
    return rev


@dataclass
class RunCoverage:
    """One run's measurement: the session (or why there is none) and the code paths."""

    session: Session
    code: list[str]

    def plan(self, plan: SuitePlan) -> SuitePlan:
        return self.session.plan(plan)

    def result(self, outcome: SuiteOutcome) -> PatchCoverage:
        self.session.take_head(outcome)
        return self.session.result(self.code)


def _not_measured(runner: Runner | None, repo: Path, why: str) -> RunCoverage:
    session = Session(runner, repo, {}, has_proof=False)
    session.reason = f"not measured: {why}"[:NOTE_MAX_CHARS]
    return RunCoverage(session, [])


def start_run(repo: Path, rev: str, runner: Runner | None) -> RunCoverage:
    """The session for ``repo``'s HEAD against ``rev`` (checked by ``check_diff_base``)."""
    from verify_pr.git.changed_lines import changed_lines
    from verify_pr.git.hardened import HardenedGit, decode_path
    from verify_pr.git.source import locate, object_format
    from verify_pr.verify.split.testpaths import rule_for, split

    try:
        with HardenedGit(repo, object_format=object_format(locate(repo))) as git:
            head = git.resolve("HEAD", "the work tree's HEAD")
            try:
                base = git.resolve(rev, DIFF_BASE_FLAG)
            except VerifyPrError as exc:  # a shallow clone: the base is not there to diff
                return _not_measured(
                    runner,
                    repo,
                    f"{exc.diagnostics()} (a shallow clone lacks it: fetch it, "
                    "e.g. actions/checkout with fetch-depth: 0)",
                )
            changed = [decode_path(p) for p in git.changed_paths(base, head)]
            status = git.uncommitted()
    except VerifyPrError as exc:  # a git failure costs the figures, never the run
        return _not_measured(runner, repo, f"the changed lines could not be read ({exc})")
    _shared, code = split(changed, rule_for(repo, runner, changed))
    if status is None:
        return _not_measured(runner, repo, "the work tree's status could not be read")
    dirty = sorted({_status_path(line) for line in status} & set(code))
    if dirty:
        return _not_measured(
            runner,
            repo,
            f"the work tree has uncommitted changes to {len(dirty)} changed code file(s) "
            f"(e.g. {dirty[0]!r}): the lines that ran are not HEAD's lines",
        )
    try:
        lines = changed_lines(repo, base, head, code)
    except VerifyPrError as exc:
        return _not_measured(runner, repo, f"the changed lines could not be read ({exc})")
    return RunCoverage(Session(runner, repo, lines, has_proof=False), code)


def _status_path(line: bytes) -> str:
    """The path of one ``git status --porcelain=v1 -z`` entry (``XY path``)."""
    from verify_pr.git.hardened import decode_path

    return decode_path(line[3:])
