"""The publish step (``python -m verify_pr.publish``): one check run from a verify run's artifact.

Runs in its own ``workflow_run`` job with ``checks: write`` and ``actions: read`` only, and
never checks out or runs the PR's code. The steps, one module each:

- ``event``: the trusted fields of the ``workflow_run`` event;
- ``intake``: the attacker-controlled artifact, downloaded by run id and exact name, unzipped
  under caps (``artifact``), loaded with bounded memory (``bounded_json``), cross-checked, and
  re-derived (``consistency``): a result that contradicts its own data is refused;
- ``trust``: the PR resolved from GitHub's answer for the head sha in this repository, and its
  changed files against the protected paths;
- ``conclusion``: never ``success`` or ``failure`` for a refused or untrusted result;
- ``summary`` and ``annotations``: the check's text and its failing-test annotations.

It never fails open and never fails silent: a malformed artifact or zip, a malformed or failing
API answer, or a bug in any step before posting becomes a posted NOT TRUSTED check that says
why. Only when the check itself cannot be posted does the step fail, with one ``::error`` line.
Re-runs of this job update the same check run (matched by name and ``external_id`` = run id
and attempt).

Exit codes (``exit_codes.PublishExit``): 0 the check run was posted (whatever its conclusion),
2 settings or event refused, 5 crashed (a bug stopped the posting), 6 the API failed so no check
could be posted.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from verify_pr.errors import Category, GitHubApiError
from verify_pr.exit_codes import PUBLISH_CODES, PublishExit, diagnostics, run_entry
from verify_pr.github.actions_io import escape_data
from verify_pr.github.settings import Settings
from verify_pr.models.compare import (
    COMPARE_ARTIFACT_FILES,
    COMPARE_REQUIRED_FILES,
    CompareResult,
)
from verify_pr.models.coverage import PatchCoverage
from verify_pr.models.verdict import VerdictFile
from verify_pr.policy.unloaded import forgiven as forgiven_unloaded
from verify_pr.publish.annotations import (
    MAX_ANNOTATIONS,
    coverage_annotations,
    failing_annotations,
)
from verify_pr.publish.checks import Annotation, Conclusion
from verify_pr.publish.conclusion import conclude, conclusion_for
from verify_pr.publish.event import WorkflowRunEvent, read_event
from verify_pr.publish.github_api import GitHubClient
from verify_pr.publish.intake import (
    ARTIFACT_FILES,
    Accepted,
    CompareArtifact,
    Intake,
    Refused,
    fetch_artifact,
)
from verify_pr.publish.summary import render
from verify_pr.publish.trust import Trust, assess_trust, protected_patterns

__all__ = [
    "ARTIFACT_FILES",
    "COMPARE_ARTIFACT_FILES",
    "COMPARE_REQUIRED_FILES",
    "Trust",
    "conclude",
    "main",
    "publish",
]


def _internal(exc: BaseException) -> str:
    return f"an internal error ({type(exc).__name__}: {str(exc)[:200]})"


def take_intake(client: GitHubClient, event: WorkflowRunEvent, name: str) -> Intake:
    """The artifact, or why it was refused; a bug in the intake is a refusal, not a crash."""
    try:
        return fetch_artifact(client, event, name)
    except Exception as exc:  # fail closed: whatever went wrong, say NOT TRUSTED
        return Refused(f"the artifact could not be read: {_internal(exc)}")


def _compared(intake: Intake | None) -> CompareResult | None:
    match intake:
        case Accepted(artifact=CompareArtifact(compare=compare)):
            return compare
        case _:
            return None


def take_trust(
    client: GitHubClient, event: WorkflowRunEvent, settings: Settings, intake: Intake | None = None
) -> Trust:
    """The trust assessment; an API failure or a bug makes the result untrusted, with why."""
    try:
        patterns = protected_patterns(event, settings.protected_paths)
        unloaded = forgiven_unloaded(_compared(intake))
        return assess_trust(client, event, patterns, unloaded)
    except GitHubApiError as exc:
        return Trust([f"the PR could not be checked through the API: {exc.diagnostics()}"])
    except Exception as exc:  # fail closed
        return Trust([f"the PR could not be checked: {_internal(exc)}"])


def take_annotations(
    client: GitHubClient,
    verdict: VerdictFile,
    head_sha: str,
    notes: list[str],
    coverage: PatchCoverage | None = None,
) -> list[Annotation]:
    """Annotations are a convenience: when they cannot be made, the check says so and goes on.
    Failing tests first; the changed lines nothing ran (notices) in the room left."""
    try:
        found = failing_annotations(client, verdict, head_sha)
        room = MAX_ANNOTATIONS - len(found)
        return found + coverage_annotations(client, coverage, head_sha, room)
    except GitHubApiError as exc:
        notes.append(f"no annotations: the head commit's tree could not be read ({exc.message})")
    except Exception as exc:  # the check is still posted
        notes.append(f"no annotations: {_internal(exc)}")
    return []


def publish(settings: Settings, client: GitHubClient) -> Conclusion:
    event = read_event(settings.event_path)
    intake = take_intake(client, event, settings.artifact_name)
    trust = take_trust(client, event, settings, intake)
    conclusion = conclusion_for(intake, trust)
    notes: list[str] = []
    run = event.workflow_run
    annotations = (
        take_annotations(
            client, intake.artifact.annotated, run.head_sha, notes, intake.artifact.coverage
        )
        if isinstance(intake, Accepted) and trust.trusted
        else []
    )
    client.publish_check_run(
        name=settings.check_name,
        head_sha=run.head_sha,
        external_id=f"verify-run:{run.id}:{run.run_attempt}",
        conclusion=conclusion,
        output=render(intake, trust, conclusion, notes),
        annotations=annotations,
        details_url=run.html_url,
    )
    return conclusion


def _error(message: str) -> None:
    print(f"::error title=verify-pr publish::{escape_data(message)}", flush=True)


def main(env: Mapping[str, str] | None = None) -> int:
    import os

    environ = os.environ if env is None else env

    def post() -> int:
        settings = Settings.from_env(environ)
        with GitHubClient(
            token=settings.token, repository=settings.repository, base_url=settings.api_url
        ) as client:
            conclusion = publish(settings, client)
        print(f"verify-pr: check run posted, conclusion {conclusion.value}", flush=True)
        return PublishExit.POSTED

    return run_entry("verify-pr publish", post, PUBLISH_CODES, _say)


def _say(category: Category, exc: BaseException) -> None:
    """One ``::error`` line, never a traceback."""
    if category is Category.NOT_POSTED:
        _error(f"no check run could be posted: {diagnostics(exc)}")
    elif category is Category.REFUSED:
        _error(diagnostics(exc))
    else:  # crashed
        _error(f"no check run could be posted: {_internal(exc)}")


if __name__ == "__main__":
    sys.exit(main())
