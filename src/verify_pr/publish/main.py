"""The publish step (``python -m verify_pr.publish``): one check run from a verify run's artifact.

Runs in its own ``workflow_run`` job with ``checks: write`` and ``actions: read`` only, and
never checks out or runs the PR's code. The artifact is attacker-controlled (a fork can rewrite
the verify workflow and upload anything), so:

- only GitHub's own fields of the ``workflow_run`` event are trusted: the run ``id`` and
  ``run_attempt``, ``head_sha``, ``head_repository.id`` against ``repository.id``, ``event``
  and ``path`` (the workflow file that ran);
- the artifact is downloaded by run id and exact name, checked by ``publish.artifact`` and the
  strict models (``result.json`` is a ``SandboxResult``, ``verdict.json`` a ``VerdictFile``
  whose ``sandbox`` equals ``result.json``), and must belong to that run and head sha;
- the PR is found through the API (its head must be the trusted head sha and repository), and
  its changed files are listed: if it changes the workflow that produced the artifact, anything
  under ``.github/``, any ``action.yml``, or a configured protected path, the result is
  **not trusted**. An untrusted or refused result concludes ``action_required``, never
  ``success`` or ``failure``.

Conclusions (trusted results): PASS -> success, FAIL -> failure, NOT_PROVEN -> neutral,
BLOCKED -> action_required. Re-runs of this job update the same check run (matched by name and
``external_id`` = run id and attempt).

Exit codes: 0 the check run was posted (whatever its conclusion), 2 settings or event unusable,
5 the API failed.
"""

from __future__ import annotations

import fnmatch
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, assert_never

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from verify_pr.errors import ConfigError, GitHubApiError, ReportError, VerifyPrError
from verify_pr.github.settings import Settings
from verify_pr.models.report import TestStatus
from verify_pr.models.sandbox import SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.publish.artifact import DEFAULT_LIMITS, read_artifact
from verify_pr.publish.checks import Annotation, CheckAnnotationLevel, CheckOutput, Conclusion
from verify_pr.publish.github_api import GitHubClient, changed_paths
from verify_pr.publish.render import escape_inline, fenced_block, inline_code, table

EXIT_POSTED = 0
EXIT_CONFIG = 2
EXIT_API = 5
ARTIFACT_FILES = frozenset({"result.json", "verdict.json", "output.txt", "report.txt"})
REQUIRED_FILES = frozenset({"result.json", "verdict.json"})
PR_FILES_LIMIT = 3000
"""GitHub lists at most this many files of a PR; a PR at the limit cannot be checked."""
DEFAULT_PROTECTED = (".github/*", "action.yml", "action.yaml", "*/action.yml", "*/action.yaml")
MAX_ANNOTATIONS = 500
MAX_FAILING_ROWS = 100
OUTPUT_SHOWN_BYTES = 48 * 1024


class _Event(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="ignore")


class _Repo(_Event):
    id: int
    full_name: Annotated[str, Field(max_length=201)] = ""


class _Owner(_Event):
    login: Annotated[str, Field(max_length=100)]


class _HeadRepo(_Event):
    id: int
    owner: _Owner


class _PullHead(_Event):
    sha: str


class _EventPull(_Event):
    number: int
    head: _PullHead


class _WorkflowRun(_Event):
    id: Annotated[int, Field(ge=1)]
    run_attempt: Annotated[int, Field(ge=1)] = 1
    head_sha: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
    head_branch: Annotated[str, Field(max_length=255)] | None
    head_repository: _HeadRepo | None
    event: Annotated[str, Field(max_length=64)]
    path: Annotated[str, Field(max_length=1024)] | None = None
    html_url: Annotated[str, Field(pattern=r"^https://", max_length=2048)] | None = None
    pull_requests: list[_EventPull] = []


class WorkflowRunEvent(_Event):
    """The trusted part of a ``workflow_run`` payload."""

    workflow_run: _WorkflowRun
    repository: _Repo


@dataclass
class Trust:
    """Whether the artifact can be believed; ``reasons`` say why not."""

    reasons: list[str] = field(default_factory=list)

    @property
    def trusted(self) -> bool:
        return not self.reasons


@dataclass(frozen=True)
class Intake:
    """A validated artifact (or the reason it was refused)."""

    result: SandboxResult | None = None
    verdict: VerdictFile | None = None
    output: str = ""
    refused: str = ""


def read_event(path: str) -> WorkflowRunEvent:
    try:
        return WorkflowRunEvent.model_validate_json(Path(path).read_bytes())
    except (OSError, ValidationError) as exc:
        raise ConfigError(
            f"cannot read the workflow_run event at {path}: {exc}",
            hint="run the publish action in a job triggered by `on: workflow_run`",
        ) from exc


def validate_files(files: Mapping[str, bytes]) -> Intake:
    """The strict models over the artifact's files; ``refused`` says what failed."""
    try:
        result = SandboxResult.model_validate_json(files["result.json"])
        verdict = VerdictFile.model_validate_json(files["verdict.json"])
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5]
        )
        return Intake(refused=f"a file does not match its model ({problems})")
    if verdict.sandbox != result:
        return Intake(refused="verdict.json and result.json describe different runs")
    output = files.get("output.txt", b"").decode("utf-8", "replace")
    return Intake(result=result, verdict=verdict, output=output)


def fetch_artifact(client: GitHubClient, event: WorkflowRunEvent, name: str) -> Intake:
    run = event.workflow_run
    try:
        artifact = client.run_artifact(run.id, name)
        origin = artifact.workflow_run
        if origin is not None and (
            (origin.id is not None and origin.id != run.id)
            or (origin.head_sha is not None and origin.head_sha != run.head_sha)
        ):
            return Intake(refused="the artifact does not belong to the verify run")
        data = client.download_artifact(artifact.id, max_bytes=DEFAULT_LIMITS.max_archive_bytes)
        files = read_artifact(data, allowed_names=ARTIFACT_FILES, required_names=REQUIRED_FILES)
    except (GitHubApiError, ReportError) as exc:
        return Intake(refused=exc.diagnostics())
    return validate_files(files)


def protected_patterns(event: WorkflowRunEvent, extra: Sequence[str]) -> tuple[str, ...]:
    own = (event.workflow_run.path,) if event.workflow_run.path else ()
    return (*own, *DEFAULT_PROTECTED, *extra)


def assess_trust(client: GitHubClient, event: WorkflowRunEvent, patterns: Sequence[str]) -> Trust:
    """Decide from GitHub's fields and the API whether the verify run could have been forged."""
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
    number = _find_pull(client, event)
    if number is None:
        trust.reasons.append("no open pull request has this head commit")
        return trust
    files = client.pull_request_files(number)
    if len(files) >= PR_FILES_LIMIT:
        trust.reasons.append(f"the PR changes {len(files)} files; GitHub does not list them all")
    touched = sorted(
        p for p in changed_paths(files) if any(fnmatch.fnmatchcase(p, g) for g in patterns)
    )
    if touched:
        shown = ", ".join(touched[:10]) + (" …" if len(touched) > 10 else "")
        trust.reasons.append(
            f"the PR changes files that decide how it is verified: {shown} "
            "(a PR can rewrite the workflow and upload any result)"
        )
    return trust


def _find_pull(client: GitHubClient, event: WorkflowRunEvent) -> int | None:
    run = event.workflow_run
    for pull in run.pull_requests:
        if pull.head.sha == run.head_sha:
            return pull.number
    if run.head_repository is None or not run.head_branch:
        return None
    for listed in client.open_pulls_for_head(run.head_repository.owner.login, run.head_branch):
        if listed.head_sha == run.head_sha and listed.head_repo_id == run.head_repository.id:
            return listed.number
    return None


def conclude(verdict: Verdict | None, trust: Trust) -> Conclusion:
    """The check's conclusion: never success or failure for an untrusted or absent result."""
    if verdict is None or not trust.trusted:
        return Conclusion.ACTION_REQUIRED
    match verdict:
        case Verdict.PASS:
            return Conclusion.SUCCESS
        case Verdict.FAIL:
            return Conclusion.FAILURE
        case Verdict.NOT_PROVEN:
            return Conclusion.NEUTRAL
        case Verdict.BLOCKED:
            return Conclusion.ACTION_REQUIRED
        case _ as unreachable:
            assert_never(unreachable)


MEANINGS = {
    Verdict.PASS: "The suite ran in the sandbox and its report shows no failure.",
    Verdict.FAIL: "The suite ran in the sandbox and its report shows failing tests.",
    Verdict.NOT_PROVEN: (
        "NOT PROVEN: the run does not support a verdict either way (no report, a crash, a "
        "timeout, missing dependencies, no tests...). This is not a pass: the check is neutral, "
        "which a required check counts as passing, so review the reasons before merging."
    ),
    Verdict.BLOCKED: (
        "BLOCKED: the sandbox could not run (the image, the daemon or the runner failed). This "
        "says nothing about the PR; a maintainer has to fix the verify job and re-run it."
    ),
}


def render(intake: Intake, trust: Trust, conclusion: Conclusion) -> CheckOutput:
    """Title, summary and text; every string from the artifact is escaped."""
    verdict = intake.verdict
    lines: list[str] = []
    if intake.refused:
        title = "NOT TRUSTED: the verify run's artifact was refused"
        lines += ["## The result cannot be used", "", escape_inline(intake.refused), ""]
    elif not trust.trusted or verdict is None:
        title = "NOT TRUSTED: the result of this PR cannot be believed"
    else:
        title = verdict.verdict.value.replace("_", " ")
    if not trust.trusted:
        lines += ["## NOT TRUSTED", ""]
        lines += [f"- {escape_inline(reason)}" for reason in trust.reasons]
        lines += [
            "",
            f"Whatever the artifact claims, this check concludes `{conclusion.value}`: "
            "a maintainer must review the PR's workflow changes and verify it by other means.",
            "",
        ]
    if verdict is not None:
        claimed = "Claimed verdict" if not trust.trusted else "Verdict"
        lines += [f"## {claimed}: {verdict.verdict.value.replace('_', ' ')}", ""]
        lines += [MEANINGS[verdict.verdict], ""]
        if verdict.totals is not None:
            t = verdict.totals
            lines.append(
                table(
                    ("total", "passed", "failed", "errors", "skipped"),
                    [(str(t.total), str(t.passed), str(t.failed), str(t.error), str(t.skipped))],
                )
            )
        lines += [f"- {escape_inline(reason)}" for reason in verdict.reasons]
        lines.append(f"\nRunner: {inline_code(verdict.runner)}; sandbox: {verdict.sandbox.status}")
    text = None
    if verdict is not None:
        text = _details(verdict, intake.output)
    return CheckOutput(title=title, summary="\n".join(lines) + "\n", text=text)


def _details(verdict: VerdictFile, output: str) -> str:
    failing = [c for c in verdict.testcases if c.status in (TestStatus.FAILED, TestStatus.ERROR)]
    parts: list[str] = []
    if failing:
        rows = [
            (c.name, c.file or "", str(c.line or ""), (c.message or "")[:500])
            for c in failing[:MAX_FAILING_ROWS]
        ]
        parts += ["## Failing tests", "", table(("test", "file", "line", "message"), rows)]
    if output:
        shown = output.encode()[-OUTPUT_SHOWN_BYTES:].decode("utf-8", "ignore")
        parts += ["## Output (the end)", "", fenced_block(shown)]
    return "\n".join(parts) + "\n"


def failing_annotations(
    client: GitHubClient, verdict: VerdictFile, head_sha: str
) -> list[Annotation]:
    """Failing tests on files that exist in the head commit, line at least 1."""
    failing = [
        c for c in verdict.testcases if c.status in (TestStatus.FAILED, TestStatus.ERROR) and c.file
    ]
    if not failing:
        return []
    paths = client.tree(head_sha).paths
    found: list[Annotation] = []
    for case in failing:
        path = (case.file or "").removeprefix("./")
        if path not in paths or path.startswith("/") or ".." in path.split("/"):
            continue
        line = max(case.line or 1, 1)
        found.append(
            Annotation(
                path=path,
                start_line=line,
                end_line=line,
                level=CheckAnnotationLevel.FAILURE,
                message=case.message or f"{case.status.value}: {case.name}",
                title=case.name,
            )
        )
        if len(found) >= MAX_ANNOTATIONS:
            break
    return found


def publish(settings: Settings, client: GitHubClient) -> Conclusion:
    event = read_event(settings.event_path)
    intake = fetch_artifact(client, event, settings.artifact_name)
    trust = assess_trust(client, event, protected_patterns(event, settings.protected_paths))
    verdict = intake.verdict.verdict if intake.verdict else None
    conclusion = conclude(verdict, trust)
    notes = (
        failing_annotations(client, intake.verdict, event.workflow_run.head_sha)
        if intake.verdict is not None and trust.trusted and not intake.refused
        else []
    )
    run = event.workflow_run
    client.publish_check_run(
        name=settings.check_name,
        head_sha=run.head_sha,
        external_id=f"verify-run:{run.id}:{run.run_attempt}",
        conclusion=conclusion,
        output=render(intake, trust, conclusion),
        annotations=notes,
        details_url=run.html_url,
    )
    return conclusion


def main(env: Mapping[str, str] | None = None) -> int:
    import os

    environ = os.environ if env is None else env
    try:
        settings = Settings.from_env(environ)
        with GitHubClient(
            token=settings.token, repository=settings.repository, base_url=settings.api_url
        ) as client:
            conclusion = publish(settings, client)
    except GitHubApiError as exc:
        print(f"::error title=verify-pr publish::{_encode(exc.diagnostics())}", flush=True)
        return EXIT_API
    except VerifyPrError as exc:
        print(f"::error title=verify-pr publish::{_encode(exc.diagnostics())}", flush=True)
        return EXIT_CONFIG
    print(f"verify-pr: check run posted, conclusion {conclusion.value}", flush=True)
    return EXIT_POSTED


def _encode(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


if __name__ == "__main__":
    sys.exit(main())
