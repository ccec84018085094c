"""Artifact intake: download by run id and name, unzip under caps, strict models, cross-checks.

The artifact is attacker-controlled (a fork can rewrite the verify workflow and upload
anything), so every step refuses rather than guesses, and every refusal is a value
(``Refused``) that ends in a posted NOT TRUSTED check, never an exception; what passes is
``Accepted`` with a ``RunArtifact`` or a ``CompareArtifact``:

- the artifact must belong to the verify run and its head sha (``publish.artifact`` checks the
  zip itself);
- a run artifact is ``result.json`` (a ``SandboxResult``) and ``verdict.json`` (a
  ``VerdictFile`` whose ``sandbox`` equals ``result.json``);
- a compare artifact (``models.compare.COMPARE_ARTIFACT_FILES``, flat names, never mixed with a
  run artifact's) is ``verify-pr-result.json`` (a ``CompareResult``) embedding exactly the runs
  of ``base-``/``head-verdict.json``, each equal to its ``-result.json``, with the compact
  listing of every result of a run wider than its verdict file (``listing_intake``: read
  first, under its bounds; ``policy.whole`` holds it against the run);
- every JSON file is loaded by ``bounded_json.load_model`` (memory bounded before pydantic);
- then ``consistency`` re-derives what the data implies, and any disagreement is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar, assert_never

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
    CompareVerdict,
    side_file,
)
from verify_pr.models.coverage import PatchCoverage
from verify_pr.models.listing import ListingRefused
from verify_pr.models.sandbox import SandboxResult
from verify_pr.models.verdict import Verdict, VerdictFile
from verify_pr.policy.whole import Whole, whole
from verify_pr.publish.artifact import DEFAULT_LIMITS, read_artifact
from verify_pr.publish.bounded_json import JsonRefused, load_model
from verify_pr.publish.consistency import compare_problems, run_problems
from verify_pr.publish.event import WorkflowRunEvent
from verify_pr.publish.github_api import GitHubClient
from verify_pr.publish.listing_intake import decode_listings

ARTIFACT_FILES = RUN_OUT_FILES
REQUIRED_FILES = frozenset({RESULT_FILE, VERDICT_FILE})
PROBLEMS_SHOWN = 5
_ModelT = TypeVar("_ModelT", bound=BaseModel)


@dataclass(frozen=True)
class RunArtifact:
    """A validated run artifact: its verdict file and the run's output."""

    verdict: VerdictFile
    output: str = ""

    @property
    def claimed(self) -> Verdict:
        return self.verdict.verdict

    @property
    def annotated(self) -> VerdictFile:
        """The run whose failing tests become annotations."""
        return self.verdict

    @property
    def coverage(self) -> PatchCoverage | None:
        return self.verdict.patch_coverage


@dataclass(frozen=True)
class CompareArtifact:
    """A validated compare artifact: its comparison, head's output, and each run's every
    result (from the listings of a run wider than its verdict file)."""

    compare: CompareResult
    output: str = ""
    whole: Whole | None = None

    @property
    def claimed(self) -> CompareVerdict:
        return self.compare.verdict

    @property
    def annotated(self) -> VerdictFile:
        return self.compare.head

    @property
    def coverage(self) -> PatchCoverage | None:
        return self.compare.patch_coverage


Artifact = RunArtifact | CompareArtifact


@dataclass(frozen=True)
class Accepted:
    """The artifact passed every model and cross-check."""

    artifact: Artifact


@dataclass(frozen=True)
class Refused:
    """Why the artifact cannot be used; ``claim``: what a well-formed but self-contradicting
    artifact claimed, shown beside the refusal."""

    reason: str
    claim: str | None = None


Intake = Accepted | Refused
Reader = Callable[[Mapping[str, bytes]], Artifact | Refused]


def _load(model: type[_ModelT], files: Mapping[str, bytes], name: str) -> _ModelT:
    try:
        return load_model(model, files[name])
    except JsonRefused as exc:
        raise JsonRefused(f"{name} does not match its model ({exc.message})") from exc


def _read_run(files: Mapping[str, bytes]) -> Artifact | Refused:
    """The strict models over a run artifact's files."""
    result = _load(SandboxResult, files, RESULT_FILE)
    verdict = _load(VerdictFile, files, VERDICT_FILE)
    if verdict.sandbox != result:
        return Refused("verdict.json and result.json describe different runs")
    return RunArtifact(verdict, files.get(OUTPUT_FILE, b"").decode("utf-8", "replace"))


def _read_compare(files: Mapping[str, bytes]) -> Artifact | Refused:
    """The strict models over a compare artifact, cross-checked file against file. Its
    listings (``listing_intake``) are read first, under their bounds."""
    try:
        listings = decode_listings(files)
    except ListingRefused as exc:
        return Refused(str(exc))
    result = _load(CompareResult, files, COMPARE_RESULT_FILE)
    sides = {
        side: (
            _load(SandboxResult, files, side_file(side, RESULT_FILE)),
            _load(VerdictFile, files, side_file(side, VERDICT_FILE)),
        )
        for side in COMPARE_SIDES
    }
    for side, embedded in (("base", result.before), ("head", result.head)):
        sandbox, verdict = sides[side]
        if verdict.sandbox != sandbox:
            return Refused(f"{side}-verdict.json and {side}-result.json differ")
        if embedded != verdict:
            return Refused(
                f"{COMPARE_RESULT_FILE} embeds another {side} run than {side}-verdict.json"
            )
    try:
        runs = whole(result, listings)
    except ListingRefused as exc:
        return Refused(f"the artifact contradicts itself: {exc}", result.verdict.value)
    output = files.get(side_file("head", OUTPUT_FILE), b"").decode("utf-8", "replace")
    return CompareArtifact(result, output, runs)


def _kind(
    files: Mapping[str, bytes],
) -> Callable[[Mapping[str, bytes]], Artifact | Refused] | Refused:
    """Which artifact the files make: a run's or a comparison's, never a mix of the two."""
    names = set(files)
    if COMPARE_RESULT_FILE in names:
        stray, missing = names & ARTIFACT_FILES, COMPARE_REQUIRED_FILES - names
        reader = _read_compare
        what = "a compare artifact holds run files"
    else:
        stray, missing = names & COMPARE_ARTIFACT_FILES, REQUIRED_FILES - names
        reader = _read_run
        what = "a run artifact holds compare files"
    if stray:
        return Refused(f"{what}: {', '.join(sorted(stray))}")
    if missing:
        return Refused(f"artifact refused: missing {', '.join(sorted(missing))}")
    return reader


def validate_artifact(files: Mapping[str, bytes], head_sha: str) -> Intake:
    """A run artifact or a compare artifact: its strict models, its files against each other,
    then the verdict's policy over its data (``consistency``)."""
    reader = _kind(files)
    if isinstance(reader, Refused):
        return reader
    try:
        read = reader(files)
    except JsonRefused as exc:
        return Refused(exc.message)
    if isinstance(read, Refused):
        return read
    found = problems(read, head_sha)
    if found:
        shown = "; ".join(found[:PROBLEMS_SHOWN])
        more = f" (+{len(found) - PROBLEMS_SHOWN} more)" if len(found) > PROBLEMS_SHOWN else ""
        return Refused(f"the artifact contradicts itself: {shown}{more}", read.claimed.value)
    return Accepted(read)


def problems(artifact: Artifact, head_sha: str) -> list[str]:
    """What the artifact's own data says against it (the one dispatch on its kind)."""
    match artifact:
        case RunArtifact(verdict=verdict):
            return run_problems(verdict)
        case CompareArtifact(compare=compare, whole=runs):
            return compare_problems(compare, head_sha, runs)
        case _ as unreachable:
            assert_never(unreachable)


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
            return Refused("the artifact does not belong to the verify run")
        data = client.download_artifact(artifact.id, max_bytes=DEFAULT_LIMITS.max_archive_bytes)
        files = read_artifact(data, allowed_names=ARTIFACT_FILES | COMPARE_ARTIFACT_FILES)
    except (GitHubApiError, ReportError) as exc:
        return Refused(exc.diagnostics())
    return validate_artifact(files, run.head_sha)
