"""Artifact intake: download by run id and name, unzip under caps, strict models, cross-checks.

The artifact is attacker-controlled (a fork can rewrite the verify workflow and upload
anything), so every step refuses rather than guesses, and every refusal is a value
(``Intake.refused``) that ends in a posted NOT TRUSTED check, never an exception:

- the artifact must belong to the verify run and its head sha (``publish.artifact`` checks the
  zip itself);
- a run artifact is ``result.json`` (a ``SandboxResult``) and ``verdict.json`` (a
  ``VerdictFile`` whose ``sandbox`` equals ``result.json``);
- a compare artifact (``models.compare.COMPARE_ARTIFACT_FILES``, flat names, never mixed with a
  run artifact's) is ``verify-pr-result.json`` (a ``CompareResult``) embedding exactly the runs
  of ``base-``/``head-verdict.json``, each equal to its ``-result.json``, with the compact
  listing of every result of a run wider than its verdict file (``listing_intake``: read
  first, under its bounds, and held against the run);
- every JSON file is loaded by ``bounded_json.load_model`` (memory bounded before pydantic);
- then ``consistency`` re-derives what the data implies, and any disagreement is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel

from verify_pr.contract import (
    COMPARE_RESULT_FILE,
    OUTPUT_FILE,
    RESULT_FILE,
    RUN_OUT_FILES,
    VERDICT_FILE,
)
from verify_pr.errors import GitHubApiError, ReportError
from verify_pr.models.compare import (
    COMPARE_ARTIFACT_FILES,
    COMPARE_REQUIRED_FILES,
    COMPARE_SIDES,
    CompareResult,
    side_file,
)
from verify_pr.models.listing import ListingRefused
from verify_pr.models.sandbox import SandboxResult
from verify_pr.models.verdict import VerdictFile
from verify_pr.publish.artifact import DEFAULT_LIMITS, read_artifact
from verify_pr.publish.bounded_json import JsonRefused, load_model
from verify_pr.publish.consistency import compare_problems, run_problems
from verify_pr.publish.event import WorkflowRunEvent
from verify_pr.publish.github_api import GitHubClient
from verify_pr.publish.listing_intake import decode_listings, whole

ARTIFACT_FILES = RUN_OUT_FILES
REQUIRED_FILES = frozenset({RESULT_FILE, VERDICT_FILE})
PROBLEMS_SHOWN = 5
_ModelT = TypeVar("_ModelT", bound=BaseModel)


@dataclass(frozen=True)
class Intake:
    """A validated artifact (or the reason it was refused): a run's or a comparison's."""

    result: SandboxResult | None = None
    verdict: VerdictFile | None = None
    output: str = ""
    refused: str = ""
    compare: CompareResult | None = None
    """Set for a compare artifact (then ``verdict`` is None and ``output`` is head's)."""
    refused_claim: str | None = None
    """What a well-formed but self-contradicting artifact claimed, shown beside the refusal."""

    @property
    def claimed(self) -> str | None:
        """The verdict the artifact claims, e.g. ``PASS`` or ``VERIFIED``."""
        if self.compare is not None:
            return self.compare.verdict.value
        return self.verdict.verdict.value if self.verdict is not None else None


def _load(model: type[_ModelT], files: Mapping[str, bytes], name: str) -> _ModelT:
    try:
        return load_model(model, files[name])
    except JsonRefused as exc:
        raise JsonRefused(f"{name} does not match its model ({exc.message})") from exc


def _contradiction(problems: list[str], claim: str) -> Intake:
    shown = "; ".join(problems[:PROBLEMS_SHOWN])
    more = f" (+{len(problems) - PROBLEMS_SHOWN} more)" if len(problems) > PROBLEMS_SHOWN else ""
    return Intake(refused=f"the artifact contradicts itself: {shown}{more}", refused_claim=claim)


def validate_files(files: Mapping[str, bytes]) -> Intake:
    """The strict models over a run artifact's files; ``refused`` says what failed."""
    try:
        result = _load(SandboxResult, files, RESULT_FILE)
        verdict = _load(VerdictFile, files, VERDICT_FILE)
    except JsonRefused as exc:
        return Intake(refused=exc.message)
    if verdict.sandbox != result:
        return Intake(refused="verdict.json and result.json describe different runs")
    problems = run_problems(verdict)
    if problems:
        return _contradiction(problems, verdict.verdict.value)
    output = files.get(OUTPUT_FILE, b"").decode("utf-8", "replace")
    return Intake(result=result, verdict=verdict, output=output)


def validate_compare_files(files: Mapping[str, bytes], head_sha: str) -> Intake:
    """The strict models over a compare artifact, cross-checked file against file. Its
    listings (``listing_intake``) are read first, under their bounds."""
    try:
        listings = decode_listings(files)
    except ListingRefused as exc:
        return Intake(refused=str(exc))
    try:
        result = _load(CompareResult, files, COMPARE_RESULT_FILE)
        sides = {
            side: (
                _load(SandboxResult, files, side_file(side, RESULT_FILE)),
                _load(VerdictFile, files, side_file(side, VERDICT_FILE)),
            )
            for side in COMPARE_SIDES
        }
    except JsonRefused as exc:
        return Intake(refused=exc.message)
    for side, embedded in (("base", result.before), ("head", result.head)):
        sandbox, verdict = sides[side]
        if verdict.sandbox != sandbox:
            return Intake(refused=f"{side}-verdict.json and {side}-result.json differ")
        if embedded != verdict:
            return Intake(
                refused=f"{COMPARE_RESULT_FILE} embeds another {side} run than {side}-verdict.json"
            )
    try:
        runs = whole(result, listings)
    except ListingRefused as exc:
        return _contradiction([str(exc)], result.verdict.value)
    problems = compare_problems(result, head_sha, runs)
    if problems:
        return _contradiction(problems, result.verdict.value)
    output = files.get(side_file("head", OUTPUT_FILE), b"").decode("utf-8", "replace")
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
    """Download, unzip and validate; any API or archive problem is a refusal, not an error."""
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
