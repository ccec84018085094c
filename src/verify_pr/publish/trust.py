"""Could the verify run have been forged? Decided from GitHub's fields and answers only.

The PR is resolved from GitHub's answer for the head sha in *this* repository (the commit's
PRs, then the event's ``pull_requests`` as hints, then the PRs of the head branch), and a PR
counts only if the API says it is open, its base repository is this repository, and its head
is the run's head sha and head repository. The event's list alone is never enough: it can name
a PR of another repository whose head branch has the same name.

Then the files each such PR changes are listed: if any changes the workflow that produced the
artifact, anything under ``.github/``, any ``action.yml``, or a configured protected path, or a
test file a VERIFIED comparison forgave for not loading on head (``verify.unloaded``: it must be
untouched by the PR), the result is **not trusted**.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field

from verify_pr.errors import GitHubApiError
from verify_pr.publish.event import WorkflowRunEvent
from verify_pr.publish.github_api import GitHubClient, PullRequest, changed_paths

PR_FILES_LIMIT = 3000
"""GitHub lists at most this many files of a PR; a PR at the limit cannot be checked."""
DEFAULT_PROTECTED = (".github/*", "action.yml", "action.yaml", "*/action.yml", "*/action.yaml")
MAX_EVENT_HINTS = 5
MAX_PULLS_CHECKED = 5


@dataclass
class Trust:
    """Whether the artifact can be believed; ``reasons`` say why not."""

    reasons: list[str] = field(default_factory=list)

    @property
    def trusted(self) -> bool:
        return not self.reasons


def protected_patterns(event: WorkflowRunEvent, extra: Sequence[str]) -> tuple[str, ...]:
    own = (event.workflow_run.path,) if event.workflow_run.path else ()
    return (*own, *DEFAULT_PROTECTED, *extra)


def assess_trust(
    client: GitHubClient,
    event: WorkflowRunEvent,
    patterns: Sequence[str],
    unloaded: Sequence[str] = (),
) -> Trust:
    """Decide from GitHub's fields and the API whether the verify run could have been forged.

    ``unloaded``: the test files a VERIFIED comparison's head could not load, forgiven because
    the PR does not change them; GitHub's own listing of each PR's files must agree."""
    run = event.workflow_run
    trust = Trust()
    same_repo = run.head_repository is not None and run.head_repository.id == event.repository.id
    if not run.path:
        trust.reasons.append("the event does not name the workflow file that ran")
    if run.event == "push":
        if not same_repo:
            trust.reasons.append("a push run from another repository")
        return trust
    if run.event != "pull_request":
        trust.reasons.append(f"the verify run was triggered by {run.event!r}, not pull_request")
        return trust
    numbers = find_pulls(client, event)
    if not numbers:
        trust.reasons.append(
            "no open pull request of this repository has this head commit and head repository"
        )
        return trust
    for number in numbers[:MAX_PULLS_CHECKED]:
        trust.reasons += _changed_protected(client, number, patterns, unloaded)
    return trust


def _changed_protected(
    client: GitHubClient, number: int, patterns: Sequence[str], unloaded: Sequence[str] = ()
) -> list[str]:
    files = client.pull_request_files(number)
    reasons = []
    if len(files) >= PR_FILES_LIMIT:
        reasons.append(f"the PR changes {len(files)} files; GitHub does not list them all")
    paths = changed_paths(files)
    changed_unloaded = sorted(set(unloaded) & paths)
    if changed_unloaded:
        shown = ", ".join(changed_unloaded[:10]) + (" …" if len(changed_unloaded) > 10 else "")
        reasons.append(
            f"the comparison is VERIFIED over head test files that could not load as untouched "
            f"by the PR, but GitHub lists the PR as changing them: {shown}"
        )
    touched = sorted(p for p in paths if any(fnmatch.fnmatchcase(p, g) for g in patterns))
    if touched:
        shown = ", ".join(touched[:10]) + (" …" if len(touched) > 10 else "")
        reasons.append(
            f"the PR changes files that decide how it is verified: {shown} "
            "(a PR can rewrite the workflow and upload any result)"
        )
    return reasons


def _belongs(pull: PullRequest, event: WorkflowRunEvent) -> bool:
    run = event.workflow_run
    return (
        pull.state == "open"
        and pull.base_repo_id == event.repository.id
        and pull.head_sha == run.head_sha
        and run.head_repository is not None
        and pull.head_repo_id == run.head_repository.id
    )


def find_pulls(client: GitHubClient, event: WorkflowRunEvent) -> list[int]:
    """The open PRs of this repository whose head is the run's head, by the API's answer."""
    run = event.workflow_run
    found = [p.number for p in client.pulls_for_commit(run.head_sha) if _belongs(p, event)]
    if not found:
        hints = dict.fromkeys(p.number for p in run.pull_requests if p.head.sha == run.head_sha)
        for number in list(hints)[:MAX_EVENT_HINTS]:
            try:
                pull = client.pull(number)
            except GitHubApiError:
                continue  # not a PR of this repository (or unreadable): not evidence either way
            if _belongs(pull, event):
                found.append(pull.number)
    if not found and run.head_repository is not None and run.head_branch:
        owner = run.head_repository.owner.login
        listed = client.open_pulls_for_head(owner, run.head_branch)
        found = [p.number for p in listed if _belongs(p, event)]
    return sorted(set(found))
