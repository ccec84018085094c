"""The trusted part of the ``workflow_run`` event that started the publish job.

Only GitHub's own fields are read: the run ``id`` and ``run_attempt``, ``head_sha``,
``head_repository``, ``event``, ``path`` (the workflow file that ran) and ``repository``. The
event's ``pull_requests`` list is a hint only: ``trust.find_pull`` checks each against the API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from verify_pr.errors import ConfigError
from verify_pr.publish.bounded_json import first_problems

EVENT_MAX_BYTES = 25 * 1024 * 1024
"""GitHub caps webhook payloads at 25 MB."""


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


def read_event(path: str) -> WorkflowRunEvent:
    try:
        data = Path(path).read_bytes()
        if len(data) > EVENT_MAX_BYTES:
            raise ValueError(f"over {EVENT_MAX_BYTES} bytes")
        return WorkflowRunEvent.model_validate_json(data)
    except ValidationError as exc:
        problem = first_problems(exc)
    except (OSError, ValueError) as exc:
        problem = str(exc)
    raise ConfigError(
        f"cannot read the workflow_run event at {path}: {problem}",
        hint="run the publish action in a job triggered by `on: workflow_run`",
    )
