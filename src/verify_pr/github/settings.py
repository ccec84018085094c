"""Action settings, read once from an environment mapping (``Settings.from_env(os.environ)``).

Action inputs arrive as ``INPUT_<NAME>`` environment variables (action.yml passes every input
through ``env:``, never through ``${{ }}`` in ``run:``); the runner's own variables are read from
the same mapping. Tests pass a plain dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import Field, ValidationError

from verify_pr.errors import ConfigError
from verify_pr.models.base import BoundaryModel

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_CHECK_NAME = "verify-pr"
DEFAULT_ARTIFACT_NAME = "verify-pr-result"

_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9 ._()/-]{0,99}$"


def input_variable(name: str) -> str:
    """The variable the runner uses for input ``name`` (``check-name`` -> ``INPUT_CHECK-NAME``).

    Like the runner: spaces become underscores and the name is upper-cased; dashes are kept.
    """
    return "INPUT_" + name.replace(" ", "_").upper()


def read_input(env: Mapping[str, str], name: str, *, default: str | None = None) -> str:
    """An input's value, stripped; ``default`` when empty; ``ConfigError`` when required."""
    value = env.get(input_variable(name), "").strip()
    if value:
        return value
    if default is None:
        raise ConfigError(f"input {name!r} is required", hint=f"set `{name}:` in `with:`")
    return default


class Settings(BoundaryModel):
    """What the publish step needs from its inputs and the runner."""

    token: Annotated[str, Field(min_length=1, max_length=1024, repr=False)]
    repository: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")]
    api_url: Annotated[str, Field(pattern=r"^https://[^\s/]+(/[^\s]*)?$", max_length=512)]
    check_name: Annotated[str, Field(pattern=_NAME_PATTERN)]
    artifact_name: Annotated[str, Field(pattern=_NAME_PATTERN)]
    event_name: Annotated[str, Field(max_length=64)]
    event_path: Annotated[str, Field(min_length=1, max_length=4096)]

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        """Read and validate every setting; ``ConfigError`` names the first problem."""
        try:
            return cls(
                token=read_input(env, "github-token"),
                repository=env.get("GITHUB_REPOSITORY", ""),
                api_url=env.get("GITHUB_API_URL", "") or DEFAULT_API_URL,
                check_name=read_input(env, "check-name", default=DEFAULT_CHECK_NAME),
                artifact_name=read_input(env, "artifact-name", default=DEFAULT_ARTIFACT_NAME),
                event_name=env.get("GITHUB_EVENT_NAME", ""),
                event_path=env.get("GITHUB_EVENT_PATH", ""),
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"])
            # Never echo the input value: it may be the token.
            raise ConfigError(f"invalid setting {field}: {first['msg']}") from exc
