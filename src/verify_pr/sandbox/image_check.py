"""Decide whether a local image may host the sandbox, from its config alone.

Overridden by the runner: ENTRYPOINT, CMD, USER, WORKDIR, HEALTHCHECK. Refused: VOLUME (each
would be a writable anonymous volume on host disk) and ENV beyond an allow-list.

Where an image's ENV goes: Docker puts it in the container's first environment, so it reaches
stage 1 (boot.sh) and the wrapper (POSIX sh and coreutils: cp, head, cat, timeout, kill...);
the check itself runs under ``env -i`` with only PATH (the image's, checked here), HOME=/work
and CI=1 (:data:`CHECK_VARIABLES`). So each variable is judged on two questions:

- can it change what the wrapper does? The loader's and libc's (LD_*, GLIBC_TUNABLES, MALLOC_*,
  GCONV_PATH, LOCPATH), the shell's (ENV, BASH_ENV, IFS, SHELLOPTS, PS4, CDPATH) and the
  utilities' (POSIXLY_CORRECT) can: refused. None of these is on the list below.
- would the tests run differently without it? The check never gets it, so an image that needs
  it (PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, PYTHONWARNINGS, NODE_OPTIONS, NODE_PATH...) would
  be judged in another environment than the one it describes: refused, with that reason.

Accepted (and scrubbed: the check does not get them) are the variables that change neither:
locale and time zone (the wrapper counts bytes and formats no time), build-time settings of
the package tools (pip, npm, debconf: the check never installs), Python's output buffering and
bytecode writing, NODE_ENV (jest and vitest set it to "test" when unset, as in any test run),
and the official images' build metadata (*_VERSION, GPG_KEY, PYTHON_SHA256). Their names, never
their values (PIP_INDEX_URL or an npm token may hold a secret), go into result.json.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from verify_pr.errors import InputRefused
from verify_pr.sandbox.policy import DEFAULT_PATH

# What the wrapper's `env -i` passes to the check, in wrapper.sh's order (a unit test reads
# wrapper.sh for it); HOME and CI are fixed, PATH is the image's.
CHECK_VARIABLES = ("PATH", "HOME", "CI")

_ENV_ALLOWED = re.compile(
    r"PATH|HOME|HOSTNAME|TERM"
    r"|LANG|LANGUAGE|LC_[A-Z]+|TZ"  # locale and time zone
    r"|DEBIAN_FRONTEND|PIP_[A-Z0-9_]+|(?:NPM|npm)_(?:CONFIG|config)_[A-Za-z0-9_]+"  # package tools
    r"|PYTHONDONTWRITEBYTECODE|PYTHONUNBUFFERED|NODE_ENV"
    r"|[A-Z][A-Z0-9_]*_VERSION|GPG_KEY|PYTHON_SHA256|PYTHON_GET_PIP_(?:URL|SHA256)"  # build data
)
# Refused with their own reason: harmless to the wrapper, but the tests need them.
_RUNNER_VARIABLES = re.compile(r"PYTHON[A-Z0-9_]*|NODE_[A-Z0-9_]+|BUN_[A-Z0-9_]+|JAVA_TOOL_OPTIONS")
_MAX_NAMES = 64
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


@dataclass(frozen=True)
class ImageEnv:
    """What the image check decided about an image's ENV."""

    path: str  # the PATH the check gets
    scrubbed: tuple[str, ...]  # the image's accepted ENV names the check does not get


def check_image_env(config: dict[str, Any]) -> ImageEnv:
    """Refuse what would weaken the controls or be silently lost; say what the check gets."""
    volumes = config.get("Volumes") or {}
    if volumes:
        raise InputRefused(
            f"image declares VOLUME {sorted(volumes)[:3]}: each would be a writable volume on "
            "host disk",
            hint="use an image without VOLUME",
        )
    path = DEFAULT_PATH
    scrubbed: list[str] = []
    for item in config.get("Env") or []:
        key, _, value = str(item).partition("=")
        if not _ENV_ALLOWED.fullmatch(key):
            shown = key[:128]
            if _RUNNER_VARIABLES.fullmatch(key):
                raise InputRefused(
                    f"image sets ENV {shown}, which the check would not get (it runs under "
                    "env -i with PATH, HOME=/work and CI=1 only): the tests would run "
                    "differently from what the image means",
                    hint="put what it does into the image itself (install the packages, "
                    "write the config file) and drop the ENV line",
                )
            raise InputRefused(
                f"image sets ENV {shown}, which could change what the sandbox wrapper does",
                hint="use an image whose ENV holds only PATH, locale, package-tool and version "
                "variables (docs/action.md lists them)",
            )
        if key == "PATH":
            if not re.fullmatch(r"[A-Za-z0-9._/:+-]{1,1024}", value):
                raise InputRefused("image PATH holds unexpected characters")
            path = value
        elif _NAME.fullmatch(key) and key not in scrubbed and len(scrubbed) < _MAX_NAMES:
            scrubbed.append(key)
    return ImageEnv(path, tuple(scrubbed))


def image_path_env(config: dict[str, Any]) -> str:
    """Refuse what would weaken the controls; return the PATH the check should get."""
    return check_image_env(config).path
