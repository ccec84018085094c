"""Build the test image from the PR's base commit, never from its head.

The verify action's ``build-dockerfile`` input names a Dockerfile in the repository. The build
context is the base commit's tree (``pull_request.base.sha`` of the event), exported from the
checkout's git objects by the hardened git wrapper (no checkout, hooks, filters or attributes):
the PR's files are on disk, but none of them reaches the build, and a PR that edits the
Dockerfile changes nothing until it is merged. The build goes to the daemon through the Docker
SDK's build API (no CLI plugin needed), never pulls, and tags the image the verify step runs.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import docker
from docker.errors import APIError, DockerException

from verify_pr.errors import ConfigError, GitError, SandboxBlocked
from verify_pr.git.hardened import HardenedGit

# A relative path inside the repository, no `..`, no leading slash.
DOCKERFILE_PATTERN = re.compile(r"^(?!.*(^|/)\.\.(/|$))[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
EVENT_MAX_BYTES = 25 << 20
BUILD_LOG_MAX_LINES = 2000
BUILD_TIMEOUT_S = 3600


def base_sha_from_event(event_path: str) -> str:
    """``pull_request.base.sha`` of the job's event, or a ConfigError that says what to do."""
    hint = "build-dockerfile needs a job triggered by `on: pull_request`"
    try:
        with open(event_path, "rb") as handle:
            data = handle.read(EVENT_MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"the event file cannot be read: {exc.strerror}", hint=hint) from None
    if len(data) > EVENT_MAX_BYTES:
        raise ConfigError("the event file is too large", hint=hint)
    try:
        sha = json.loads(data)["pull_request"]["base"]["sha"]
    except (ValueError, KeyError, TypeError):
        raise ConfigError("the event has no pull_request.base.sha", hint=hint) from None
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", sha):
        raise ConfigError("the event's pull_request.base.sha is not a commit id", hint=hint)
    return sha


def dockerfile_in(tree: Path, dockerfile: str) -> Path:
    """The Dockerfile as a regular file inside the exported tree (never a link out of it)."""
    if not DOCKERFILE_PATTERN.match(dockerfile):
        raise ConfigError(
            f"build-dockerfile {dockerfile[:120]!r} is not a relative path inside the repository"
        )
    path = tree / PurePosixPath(dockerfile)
    if path.is_symlink() or not path.is_file():
        raise ConfigError(
            f"build-dockerfile {dockerfile!r} is not a regular file in the base commit",
            hint="the Dockerfile is read from the PR's base commit: it must exist there",
        )
    return path


def _build_lines(stream: Iterator[dict[str, Any]]) -> Iterator[str]:
    for chunk in stream:
        if "error" in chunk:
            raise SandboxBlocked(f"the image build failed: {str(chunk['error'])[:500]}")
        text = chunk.get("stream")
        if isinstance(text, str) and text.strip():
            yield text.rstrip("\n")


def build_base_image(
    repo: Path, base_sha: str, dockerfile: str, tag: str, scratch: Path
) -> list[str]:
    """Export base's tree under ``scratch`` and build ``tag`` from it; returns the build log."""
    with HardenedGit(repo) as git:
        try:
            tree = git.export(base_sha, dest_parent=scratch, what="base")
        except GitError as exc:
            raise ConfigError(
                f"the base commit {base_sha[:12]} cannot be read from the checkout: {exc}",
                hint="check out with `fetch-depth: 0` so the base commit is in the history",
            ) from exc
    try:
        rel = dockerfile_in(tree, dockerfile).relative_to(tree).as_posix()
        try:
            client = docker.APIClient(timeout=BUILD_TIMEOUT_S, **docker.utils.kwargs_from_env())
            stream = client.build(
                path=str(tree),
                dockerfile=rel,
                tag=tag,
                pull=False,
                rm=True,
                forcerm=True,
                decode=True,
            )
            log = list(_build_lines(stream))[-BUILD_LOG_MAX_LINES:]
        except (APIError, DockerException) as exc:
            raise SandboxBlocked(f"the image build could not run: {str(exc)[:500]}") from exc
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    return log
