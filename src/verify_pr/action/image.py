"""The image steps before any run: the opt-in digest pull, the build from base's Dockerfile."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from verify_pr.action.base_image import base_sha_from_event, build_base_image
from verify_pr.action.outputs import print_untrusted
from verify_pr.errors import ConfigError
from verify_pr.github.actions_io import ActionsIO
from verify_pr.github.credentials import check_credentials
from verify_pr.github.settings import DIGEST_IMAGE_PATTERN, VerifySettings


def check_pull_image(image: str) -> str:
    """The image reference for the opt-in pull: ``name@sha256:<64 hex>``, never a tag."""
    if not re.fullmatch(DIGEST_IMAGE_PATTERN, image):
        raise ConfigError(
            f"pull-image-digest needs a digest-pinned image, got {image[:120]!r}",
            hint="write image: name@sha256:<64 hex digits> (a tag can be moved; a digest cannot)",
        )
    return image


def build_image(env: Mapping[str, str], stream: TextIO) -> None:
    """The build-dockerfile step: build ``image`` from base's Dockerfile, before any run."""
    settings = VerifySettings.from_env(env)
    check_credentials(env, Path(settings.workspace), settings.repo)
    if not settings.build_dockerfile:
        raise ConfigError("build-image needs the build-dockerfile input")
    if settings.pull_image_digest or "@" in settings.image:
        raise ConfigError(
            "build-dockerfile builds `image` as a local tag: give a tag, not a digest, and "
            "leave pull-image-digest false"
        )
    if not settings.event_path:
        raise ConfigError(
            "build-dockerfile needs GITHUB_EVENT_PATH (the pull_request event)",
            hint="run it in a job triggered by `on: pull_request`",
        )
    base = base_sha_from_event(settings.event_path)
    io = ActionsIO.from_env(env, stream)
    log = build_base_image(
        settings.repo, base, settings.build_dockerfile, settings.image, Path(settings.runner_temp)
    )
    print_untrusted(io, "the image build", "\n".join(log).encode())
    print(
        f"verify-pr: built {settings.image} from {settings.build_dockerfile} at base {base[:12]}",
        file=stream,
    )
