"""Check-run annotations for failing tests: only on files of the head commit, lines in range.

A test's file and line come from the artifact, so both are checked against GitHub's tree of
the head commit: the path must be a blob there (relative, no ``..``), and the line must be at
least 1 and at most the file's length as the tree's blob size allows (a file of N bytes has at
most N + 1 lines), else the annotation goes on line 1. Never more than ``MAX_ANNOTATIONS``.
"""

from __future__ import annotations

from verify_pr.markdown import visible
from verify_pr.models.coverage import PatchCoverage
from verify_pr.models.report import TestStatus
from verify_pr.models.verdict import VerdictFile
from verify_pr.publish.checks import Annotation, CheckAnnotationLevel
from verify_pr.publish.github_api import GitHubClient, Tree
from verify_pr.render.coverage import headline, not_run_ranges

MAX_ANNOTATIONS = 500
MAX_LINE = 1_000_000
"""A sane bound where GitHub gave no blob size."""


def line_in_file(line: int | None, path: str, tree: Tree) -> int:
    """``line`` if it can exist in the file at ``path``, else 1."""
    if line is None or line < 1:
        return 1
    size = tree.sizes.get(path)
    bound = MAX_LINE if size is None else min(size + 1, MAX_LINE)
    return line if line <= bound else 1


def failing_annotations(
    client: GitHubClient, verdict: VerdictFile, head_sha: str
) -> list[Annotation]:
    """Failing tests on files that exist in the head commit, each line within its file."""
    failing = [
        c for c in verdict.testcases if c.status in (TestStatus.FAILED, TestStatus.ERROR) and c.file
    ]
    if not failing:
        return []
    tree = client.tree(head_sha)
    found: list[Annotation] = []
    for case in failing:
        path = (case.file or "").removeprefix("./")
        if path not in tree.paths or path.startswith("/") or ".." in path.split("/"):
            continue
        line = line_in_file(case.line, path, tree)
        found.append(
            Annotation(
                path=path,
                start_line=line,
                end_line=line,
                level=CheckAnnotationLevel.FAILURE,
                message=visible(case.message or f"{case.status.value}: {case.name}"),
                title=visible(case.name),
            )
        )
        if len(found) >= MAX_ANNOTATIONS:
            break
    return found


def coverage_annotations(
    client: GitHubClient, coverage: PatchCoverage | None, head_sha: str, room: int
) -> list[Annotation]:
    """A notice on each run of changed lines nothing ran, on files of the head commit with
    lines in range; at most ``room`` (what the failing tests left of ``MAX_ANNOTATIONS``)."""
    spans = not_run_ranges(coverage) if coverage is not None else []
    if not spans or room <= 0 or coverage is None:
        return []
    tree = client.tree(head_sha)
    title = visible(headline(coverage))
    found: list[Annotation] = []
    for path, first, last in spans:
        if path not in tree.paths or path.startswith("/") or ".." in path.split("/"):
            continue
        start, end = line_in_file(first, path, tree), line_in_file(last, path, tree)
        found.append(
            Annotation(
                path=path,
                start_line=start,
                end_line=max(start, end),
                level=CheckAnnotationLevel.NOTICE,
                message=(
                    "No test ran these changed lines (measured inside the PR's own processes: "
                    "information, not part of the verdict)."
                ),
                title=title,
            )
        )
        if len(found) >= room:
            break
    return found
