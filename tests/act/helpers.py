"""Helpers the act tests share: the docs' example workflows as a user pastes them (with a local
image) and the pull_request event that triggers them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.action.helpers import EXAMPLES, write_json

PYTHON_IMAGE = "verify-pr-python:local"
DOCS_IMAGE = re.compile(r"image: ghcr\.io/your-org/your-test-image@sha256:0{64}")
DOCS_PULL = 'pull-image-digest: "true"'
EXAMPLE = {p.name: p for p in EXAMPLES}
# the docs' main workflows build the test image from the base commit's Dockerfile: the PR's
# repository holds one, on top of the local test image
DOCS_DOCKERFILE = "build-dockerfile: Dockerfile"
DOCKERFILE = f"FROM {PYTHON_IMAGE}\n"


def image_files(workflow: str) -> dict[str, str]:
    """The files the PR's repository needs for ``workflow``'s image: a Dockerfile or nothing."""
    return {"Dockerfile": DOCKERFILE} if DOCS_DOCKERFILE in workflow else {}


def docs_workflow(name: str, *, persist_credentials: bool = False) -> str:
    """A docs example as a user pastes it, with only the image changed to a local one."""
    text = EXAMPLE[name].read_text(encoding="utf-8")
    if DOCS_IMAGE.search(text):
        text, swapped = DOCS_IMAGE.subn(f"image: {PYTHON_IMAGE}", text)
        assert swapped == 1 and DOCS_PULL in text
        text = text.replace(DOCS_PULL, 'pull-image-digest: "false"')
    if persist_credentials:  # the misconfiguration the refusal tests need
        assert "persist-credentials: false" in text
        text = text.replace("persist-credentials: false", "persist-credentials: true")
    return text


def pull_request_event(
    root: Path, payload: Callable[..., dict[str, Any]], base: str, head: str
) -> Path:
    event = payload("pull_request", "opened")
    event["pull_request"]["base"]["sha"] = base
    event["pull_request"]["head"]["sha"] = head
    return write_json(root / "pull_request.json", event)
