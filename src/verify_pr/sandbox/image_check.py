"""Decide whether a local image may host the sandbox, from its config alone.

Overridden by the runner: ENTRYPOINT, CMD, USER, WORKDIR, HEALTHCHECK. Refused: VOLUME (each
would be a writable anonymous volume on host disk) and ENV beyond a short allow-list (the
wrapper runs before `env -i`, so loader or shell variables could change what it does).
"""

from __future__ import annotations

import re
from typing import Any

from verify_pr.errors import InputRefused
from verify_pr.sandbox.policy import DEFAULT_PATH

_ENV_ALLOWED = re.compile(
    r"PATH|HOME|HOSTNAME|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|GPG_KEY|DEBIAN_FRONTEND"
    r"|[A-Z][A-Z0-9_]*_VERSION|PYTHON_SHA256|PYTHONDONTWRITEBYTECODE|PYTHONUNBUFFERED"
)


def image_path_env(config: dict[str, Any]) -> str:
    """Refuse what would weaken the controls; return the PATH the check should get."""
    volumes = config.get("Volumes") or {}
    if volumes:
        raise InputRefused(
            f"image declares VOLUME {sorted(volumes)[:3]}: each would be a writable volume on "
            "host disk",
            hint="use an image without VOLUME",
        )
    path = DEFAULT_PATH
    for item in config.get("Env") or []:
        key, _, value = str(item).partition("=")
        if not _ENV_ALLOWED.fullmatch(key):
            raise InputRefused(
                f"image sets ENV {key}, which could change what the sandbox wrapper does",
                hint="use an image whose ENV holds only PATH, locale and version variables",
            )
        if key == "PATH":
            if not re.fullmatch(r"[A-Za-z0-9._/:+-]{1,1024}", value):
                raise InputRefused("image PATH holds unexpected characters")
            path = value
    return path
