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

- a compare artifact (mode compare, ``models.compare.COMPARE_ARTIFACT_FILES``: flat names, never
  mixed with a run artifact's) is refused unless ``verify-pr-result.json`` is a ``CompareResult``
  embedding exactly the runs of ``base-``/``head-verdict.json`` (each equal to its
  ``-result.json``), its head sha is the trusted head sha, its transitions and counts follow
  from the embedded test cases, and a VERIFIED claim agrees with them.

Conclusions (trusted results): PASS -> success, FAIL -> failure, NOT_PROVEN -> neutral,
BLOCKED -> action_required; for a comparison VERIFIED -> success, NOT_PROVEN -> neutral,
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
from verify_pr.github.actions_io import escape_data
from verify_pr.github.settings import Settings
from verify_pr.models.compare import (
    COMPARE_ARTIFACT_FILES,
    COMPARE_REQUIRED_FILES,
    COMPARE_RESULT_FILE,
    COMPARE_SIDES,
    CompareResult,
    CompareVerdict,
    Transition,
    side_file,
)
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.sandbox import RunStatus, SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.publish.artifact import DEFAULT_LIMITS, read_artifact
from verify_pr.publish.checks import Annotation, CheckAnnotationLevel, CheckOutput, Conclusion
from verify_pr.publish.github_api import GitHubClient, changed_paths
from verify_pr.publish.render import (
    escape_inline,
    fenced_block,
    inline_code,
    table,
    transition_counts_table,
)
from verify_pr.verify.compare import classify, count

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
    """A validated artifact (or the reason it was refused): a run's or a comparison's."""

    result: SandboxResult | None = None
    verdict: VerdictFile | None = None
    output: str = ""
    refused: str = ""
    compare: CompareResult | None = None
    """Set for a compare artifact (then ``verdict`` is None and ``output`` is head's)."""

    @property
    def claimed(self) -> str | None:
        """The verdict the artifact claims, e.g. ``PASS`` or ``VERIFIED``."""
        if self.compare is not None:
            return self.compare.verdict.value
        return self.verdict.verdict.value if self.verdict is not None else None


def read_event(path: str) -> WorkflowRunEvent:
    try:
        return WorkflowRunEvent.model_validate_json(Path(path).read_bytes())
    except (OSError, ValidationError) as exc:
        raise ConfigError(
            f"cannot read the workflow_run event at {path}: {exc}",
            hint="run the publish action in a job triggered by `on: workflow_run`",
        ) from exc


def _model_problem(exc: ValidationError) -> Intake:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5]
    )
    return Intake(refused=f"a file does not match its model ({problems})")


def validate_files(files: Mapping[str, bytes]) -> Intake:
    """The strict models over a run artifact's files; ``refused`` says what failed."""
    try:
        result = SandboxResult.model_validate_json(files["result.json"])
        verdict = VerdictFile.model_validate_json(files["verdict.json"])
    except ValidationError as exc:
        return _model_problem(exc)
    if verdict.sandbox != result:
        return Intake(refused="verdict.json and result.json describe different runs")
    output = files.get("output.txt", b"").decode("utf-8", "replace")
    return Intake(result=result, verdict=verdict, output=output)


def _compare_inconsistency(result: CompareResult, head_sha: str) -> str | None:
    """Why a compare result contradicts itself or the trusted event (None when it does not)."""
    if result.head_sha != head_sha:
        return "the comparison's head commit is not the verify run's head commit"
    if result.base_sha == result.head_sha:
        return "the comparison's base and head are the same commit"
    expected = classify(
        {c.id: c.status for c in _worst(result.base)},
        {c.id: c.status for c in _worst(result.head)},
    )
    if tuple(expected) != result.transitions:
        return "the transitions do not follow from the embedded base and head runs"
    if count(result.transitions) != result.counts:
        return "the counts do not match the transitions"
    if result.verdict is CompareVerdict.VERIFIED:
        c = result.counts
        problems = [
            c.fail_to_pass == 0 and "no test fails on base and passes on head",
            c.pass_to_fail > 0 and "a test regressed",
            c.removed > 0 and "a test was removed",
            any(
                v.sandbox.status is not RunStatus.COMPLETED or v.verdict is Verdict.BLOCKED
                for v in (result.base, result.head)
            )
            and "a run did not complete",
            bool(result.harness_files_changed)
            and not result.strict_harness
            and "harness files changed without strict harness",
        ]
        found = [p for p in problems if p]
        if found:
            return f"the comparison claims VERIFIED although {found[0]}"
    return None


def _worst(verdict: VerdictFile) -> list[TestCase]:
    """One case per id, the worst status kept (as ``TestReport.worst_by_id``)."""
    rank = {TestStatus.SKIPPED: 0, TestStatus.PASSED: 1, TestStatus.FAILED: 2, TestStatus.ERROR: 3}
    worst: dict[str, TestCase] = {}
    for case in verdict.testcases:
        seen = worst.get(case.id)
        if seen is None or rank[case.status] > rank[seen.status]:
            worst[case.id] = case
    return list(worst.values())


def validate_compare_files(files: Mapping[str, bytes], head_sha: str) -> Intake:
    """The strict models over a compare artifact, cross-checked file against file."""
    try:
        result = CompareResult.model_validate_json(files[COMPARE_RESULT_FILE])
        sides = {
            side: (
                SandboxResult.model_validate_json(files[side_file(side, "result.json")]),
                VerdictFile.model_validate_json(files[side_file(side, "verdict.json")]),
            )
            for side in COMPARE_SIDES
        }
    except ValidationError as exc:
        return _model_problem(exc)
    for side, embedded in (("base", result.base), ("head", result.head)):
        sandbox, verdict = sides[side]
        if verdict.sandbox != sandbox:
            return Intake(refused=f"{side}-verdict.json and {side}-result.json differ")
        if embedded != verdict:
            return Intake(
                refused=f"{COMPARE_RESULT_FILE} embeds another {side} run than {side}-verdict.json"
            )
    problem = _compare_inconsistency(result, head_sha)
    if problem:
        return Intake(refused=problem)
    output = files.get(side_file("head", "output.txt"), b"").decode("utf-8", "replace")
    return Intake(result=result.head.sandbox, output=output, compare=result)


def validate_artifact(files: Mapping[str, bytes], head_sha: str) -> Intake:
    """A run artifact or a compare artifact, never a mix of the two."""
    names = set(files)
    if COMPARE_RESULT_FILE in names:
        stray = sorted(names & ARTIFACT_FILES)
        if stray:
            return Intake(refused=f"a compare artifact holds run files: {', '.join(stray)}")
        missing = sorted(COMPARE_REQUIRED_FILES - names)
        if missing:
            return Intake(refused=f"artifact refused: missing {', '.join(missing)}")
        return validate_compare_files(files, head_sha)
    stray = sorted(names & COMPARE_ARTIFACT_FILES)
    if stray:
        return Intake(refused=f"a run artifact holds compare files: {', '.join(stray)}")
    missing = sorted(REQUIRED_FILES - names)
    if missing:
        return Intake(refused=f"artifact refused: missing {', '.join(missing)}")
    return validate_files(files)


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
        files = read_artifact(data, allowed_names=ARTIFACT_FILES | COMPARE_ARTIFACT_FILES)
    except (GitHubApiError, ReportError) as exc:
        return Intake(refused=exc.diagnostics())
    return validate_artifact(files, run.head_sha)


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


def conclude_compare(verdict: CompareVerdict | None, trust: Trust) -> Conclusion:
    """A comparison's conclusion: success only for a trusted VERIFIED."""
    if verdict is None or not trust.trusted:
        return Conclusion.ACTION_REQUIRED
    match verdict:
        case CompareVerdict.VERIFIED:
            return Conclusion.SUCCESS
        case CompareVerdict.NOT_PROVEN:
            return Conclusion.NEUTRAL
        case CompareVerdict.BLOCKED:
            return Conclusion.ACTION_REQUIRED
        case _ as unreachable:
            assert_never(unreachable)


COMPARE_MEANINGS = {
    CompareVerdict.VERIFIED: (
        "VERIFIED: the suite ran in the sandbox on the PR's base and on its head; at least one "
        "test fails on base and passes on head, none regressed, none was removed or newly "
        "skipped, and both runs completed with a clean report."
    ),
    CompareVerdict.NOT_PROVEN: (
        "NOT PROVEN: base against head does not show that the PR fixes anything (no test turns "
        "green, a regression, removed or skipped tests, a changed harness, an incomplete run...). "
        "This is not a pass: the check is neutral, which a required check counts as passing, so "
        "review the reasons before merging."
    ),
    CompareVerdict.BLOCKED: (
        "BLOCKED: a sandbox could not run (the image, the daemon or the runner failed). This "
        "says nothing about the PR; a maintainer has to fix the verify job and re-run it."
    ),
}
FLIPS_SHOWN = (Transition.FAIL_TO_PASS, Transition.PASS_TO_FAIL, Transition.REMOVED)
MAX_FLIP_ROWS = 50


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
    elif not trust.trusted or intake.claimed is None:
        title = "NOT TRUSTED: the result of this PR cannot be believed"
    else:
        title = intake.claimed.replace("_", " ")
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
    if intake.compare is not None:
        lines += _compare_summary(intake.compare, trust)
    text = None
    if verdict is not None:
        text = _details(verdict, intake.output)
    elif intake.compare is not None:
        text = _details(intake.compare.head, intake.output, heading="Failing tests on head")
    return CheckOutput(title=title, summary="\n".join(lines) + "\n", text=text)


def _compare_summary(result: CompareResult, trust: Trust) -> list[str]:
    claimed = "Claimed verdict" if not trust.trusted else "Verdict"
    c = result.counts
    lines = [f"## {claimed}: {result.verdict.value.replace('_', ' ')} (base against head)", ""]
    lines += [COMPARE_MEANINGS[result.verdict], ""]
    lines.append(
        f"Base {inline_code(result.base_sha[:12])} ({result.base.verdict.value}) against head "
        f"{inline_code(result.head_sha[:12])} ({result.head.verdict.value})"
        + ("; strict harness: head ran with base's harness files" if result.strict_harness else "")
    )
    lines.append("")
    lines.append(transition_counts_table(c))
    lines += [f"- {escape_inline(reason)}" for reason in result.reasons]
    lines.append("")
    for kind in FLIPS_SHOWN:
        ids = [t.id for t in result.transitions if t.transition is kind]
        if ids:
            lines += [f"### {kind.value} ({len(ids)})", ""]
            lines.append(table(("test",), [(i[:300],) for i in ids[:MAX_FLIP_ROWS]]))
            if len(ids) > MAX_FLIP_ROWS:
                lines += [f"… and {len(ids) - MAX_FLIP_ROWS} more.", ""]
    if result.harness_files_changed:
        files = result.harness_files_changed
        lines += [f"### Harness files changed by the PR ({len(files)})", ""]
        lines.append(table(("file",), [(f[:300],) for f in files[:MAX_FLIP_ROWS]]))
    return lines


def _details(verdict: VerdictFile, output: str, heading: str = "Failing tests") -> str:
    failing = [c for c in verdict.testcases if c.status in (TestStatus.FAILED, TestStatus.ERROR)]
    parts: list[str] = []
    if failing:
        rows = [
            (c.name, c.file or "", str(c.line or ""), (c.message or "")[:500])
            for c in failing[:MAX_FAILING_ROWS]
        ]
        parts += [f"## {heading}", "", table(("test", "file", "line", "message"), rows)]
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
    if intake.compare is not None:
        conclusion = conclude_compare(intake.compare.verdict, trust)
        annotated: VerdictFile | None = intake.compare.head
    else:
        conclusion = conclude(intake.verdict.verdict if intake.verdict else None, trust)
        annotated = intake.verdict
    notes = (
        failing_annotations(client, annotated, event.workflow_run.head_sha)
        if annotated is not None and trust.trusted and not intake.refused
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
        print(f"::error title=verify-pr publish::{escape_data(exc.diagnostics())}", flush=True)
        return EXIT_API
    except VerifyPrError as exc:
        print(f"::error title=verify-pr publish::{escape_data(exc.diagnostics())}", flush=True)
        return EXIT_CONFIG
    print(f"verify-pr: check run posted, conclusion {conclusion.value}", flush=True)
    return EXIT_POSTED


if __name__ == "__main__":
    sys.exit(main())
