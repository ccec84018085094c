"""Action settings, read once from an environment mapping (``Settings.from_env(os.environ)``).

Action inputs arrive as ``INPUT_<NAME>`` environment variables (action.yml passes every input
through ``env:``, never through ``${{ }}`` in ``run:``); the runner's own variables are read from
the same mapping. Tests pass a plain dict.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import AfterValidator, Field, ValidationError
from pydantic_core import PydanticCustomError

from verify_pr import options
from verify_pr.contract import (
    AUTO,
    CUSTOM_FORMAT_CHOICES,
    DEFAULT_FLAKE_RUNS,
    DEFAULT_TIMEOUT_S,
    MAX_FLAKE_RUNS,
    MAX_TIMEOUT_S,
    RUNNER_CHOICES,
)
from verify_pr.errors import ConfigError, InputRefused
from verify_pr.models.base import BoundaryModel
from verify_pr.models.compare import CompareVerdict
from verify_pr.models.verdict import Verdict

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_CHECK_NAME = "verify-pr"
DEFAULT_ARTIFACT_NAME = "verify-pr-result"

Checked = TypeVar("Checked")
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


def _lines(value: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in value.splitlines() if line.strip())


class Settings(BoundaryModel):
    """What the publish step needs from its inputs and the runner."""

    token: Annotated[str, Field(min_length=1, max_length=1024, repr=False)]
    repository: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")]
    # https only; plain http only to the loopback address (the tests' API fake).
    api_url: Annotated[
        str,
        Field(
            pattern=r"^(https://[^\s/]+|http://127\.0\.0\.1:[0-9]{1,5})(/[^\s]*)?$", max_length=512
        ),
    ]
    check_name: Annotated[str, Field(pattern=_NAME_PATTERN)]
    artifact_name: Annotated[str, Field(pattern=_NAME_PATTERN)]
    event_path: Annotated[str, Field(min_length=1, max_length=4096)]
    protected_paths: tuple[Annotated[str, Field(min_length=1, max_length=200)], ...] = ()

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
                event_path=env.get("GITHUB_EVENT_PATH", ""),
                protected_paths=_lines(read_input(env, "protected-paths", default="")),
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"])
            # Never echo the input value: it may be the token.
            raise ConfigError(f"invalid setting {field}: {first['msg']}") from exc


class Mode(StrEnum):
    """The verify action's modes: ``run`` (one run) or ``compare`` (base against head)."""

    RUN = "run"
    COMPARE = "compare"


def _one_of(choices: tuple[str, ...]) -> AfterValidator:
    """A string among ``choices`` (the contract's), refused as a ``Literal`` of them would be."""
    names = [repr(choice) for choice in choices]
    expected = f"{', '.join(names[:-1])} or {names[-1]}"

    def check(value: str) -> str:
        if value in choices:
            return value
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected}
        )

    return AfterValidator(check)


RunnerChoice = Annotated[str, _one_of(RUNNER_CHOICES)]
ReportFormatChoice = Annotated[str, _one_of(("", *CUSTOM_FORMAT_CHOICES))]
_IMAGE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$"
DIGEST_IMAGE_PATTERN = (
    r"^[a-z0-9][a-z0-9._/-]{0,200}(:[0-9]{1,5}/[a-z0-9._/-]{1,200})?@sha256:[0-9a-f]{64}$"
)
"""``name@sha256:<64 hex>``, an optional registry port, and no tag."""


# The verdicts that fail the verify job by default: every one that is not a success of its mode
# (NOTHING_TO_PROVE is: a docs change or a refactor must not turn the job red; the check run
# still carries it). One list serves both modes: FAIL is run's, the rest are shared or compare's.
DEFAULT_FAIL_ON = "FAIL,NOT_PROVEN,BLOCKED"
FAIL_ON_NONE = "none"
_SUCCESSES = frozenset({Verdict.PASS.value, CompareVerdict.VERIFIED.value})
FAIL_ON_CHOICES = tuple(
    dict.fromkeys(v.value for v in (*Verdict, *CompareVerdict) if v.value not in _SUCCESSES)
)
"""The verdicts ``fail-on`` may list: each mode's, but PASS and VERIFIED (a job that failed on
them would fail on every good PR)."""


def parse_fail_on(value: str) -> tuple[str, ...]:
    """``fail-on``: a comma list of verdict names (as the ``verdict`` output spells them), or
    ``none``; refused, naming the offender, when any name is no verdict it may list."""
    if value.strip() == FAIL_ON_NONE:
        return ()
    names = [name.strip() for name in value.split(",")]
    hint = f"list verdicts among {', '.join(FAIL_ON_CHOICES)}, comma-separated, or write none"
    for name in names:
        if name in _SUCCESSES:
            raise ConfigError(
                f"input 'fail-on' lists {name}, a success: the job would fail on every good PR",
                hint=hint,
            )
        if name not in FAIL_ON_CHOICES:
            shown = repr(name[:40]) if name else "an empty name"
            raise ConfigError(f"input 'fail-on' lists {shown}, which is no verdict", hint=hint)
    return tuple(dict.fromkeys(names))


class VerifySettings(BoundaryModel):
    """What the verify step reads: its inputs and the runner's workspace. Never a token."""

    image: Annotated[str, Field(pattern=_IMAGE_PATTERN)]
    mode: Mode
    runner: RunnerChoice
    path: Annotated[
        str, Field(pattern=r"^(\.|[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*)$", max_length=1024)
    ]
    timeout: Annotated[int, Field(ge=1, le=MAX_TIMEOUT_S)]
    max_output: Annotated[int, Field(ge=1, le=1 << 20)]
    artifact_name: Annotated[str, Field(pattern=_NAME_PATTERN)]
    retention_days: Annotated[int, Field(ge=1, le=90)]
    pull_image_digest: bool
    strict_harness: bool
    command: Annotated[str, Field(max_length=4096, pattern=r"^[^\x00]*$")] = ""
    """A command of the project's own, run in the sandbox like a runner's; ``{report}`` in it is
    replaced by the random report path. Goes with ``report_format``."""
    report_format: ReportFormatChoice = ""
    cpus: Annotated[str, Field(pattern=r"^([0-9]{1,2}(\.[0-9]{1,2})?)?$")] = ""
    """CPUs for each sandbox; empty: the runner's cores (validated again by the verifier)."""
    memory: Annotated[str, Field(pattern=r"^[0-9]{1,6}[mg]$")] = "512m"
    flake_runs: Annotated[int, Field(ge=0, le=MAX_FLAKE_RUNS)] = DEFAULT_FLAKE_RUNS
    diff_base: Annotated[str, Field(max_length=300, pattern=r"^[A-Za-z0-9_./@+~^-]*$")] = ""
    """Mode run: measure which lines the checkout's HEAD changes against this commit the run
    ran (``verify-pr run --diff-base``; the verifier checks the text again); empty: not."""
    build_dockerfile: Annotated[str, Field(max_length=1024)] = ""
    """A Dockerfile in base's tree to build ``image`` from (``action.base_image``)."""
    fail_on: tuple[Annotated[str, _one_of(FAIL_ON_CHOICES)], ...] = tuple(
        DEFAULT_FAIL_ON.split(",")
    )
    """The verdicts that fail the verify job (its last step); the check run carries every one."""
    workspace: Annotated[str, Field(min_length=1, max_length=4096)]
    runner_temp: Annotated[str, Field(min_length=1, max_length=4096)]
    event_path: Annotated[str, Field(max_length=4096)] = ""
    """``GITHUB_EVENT_PATH``: mode compare reads base and head from the pull_request event."""

    @property
    def repo(self) -> Path:
        """The folder to verify: ``path`` inside the workspace, never outside it."""
        workspace = Path(self.workspace).resolve()
        repo = (workspace / self.path).resolve()
        if repo != workspace and workspace not in repo.parents:
            raise ConfigError(f"input path {self.path!r} leaves the workspace")
        return repo

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> VerifySettings:
        """Read and validate every input; ``ConfigError`` names the first problem. The
        inputs that are verify-pr's flags too are checked by the flags' own checks first
        (``verify_pr.options``): refused in the same words as the command line."""
        suite = _suite_inputs(env)
        try:
            return cls.model_validate_json(
                json.dumps(
                    {
                        **suite,
                        "mode": read_input(env, "mode", default="run"),
                        "path": read_input(env, "path", default=".").strip("/") or ".",
                        "artifact_name": read_input(
                            env, "artifact-name", default=DEFAULT_ARTIFACT_NAME
                        ),
                        "retention_days": _int(read_input(env, "retention-days", default="7")),
                        "pull_image_digest": _bool(
                            "pull-image-digest",
                            read_input(env, "pull-image-digest", default="false"),
                        ),
                        "strict_harness": _bool(
                            "strict-harness", read_input(env, "strict-harness", default="false")
                        ),
                        "diff_base": read_input(env, "diff-base", default=""),
                        "build_dockerfile": read_input(env, "build-dockerfile", default=""),
                        "fail_on": parse_fail_on(
                            read_input(env, "fail-on", default=DEFAULT_FAIL_ON)
                        ),
                        "workspace": env.get("GITHUB_WORKSPACE", ""),
                        "runner_temp": env.get("RUNNER_TEMP", ""),
                        "event_path": env.get("GITHUB_EVENT_PATH", ""),
                    }
                )
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"])
            raise ConfigError(
                f"invalid input {field.replace('_', '-')}: {first['msg']}",
                hint="see docs/action.md for the accepted values",
            ) from exc


def _suite_inputs(env: Mapping[str, str]) -> dict[str, object]:
    """The inputs that are verify-pr's flags (``--image`` ... ``--flake-runs``), each checked
    by its flag's check: a refusal carries the verifier's words, and the input's name as its
    hint; an empty cpus, command or report-format is not given."""

    def checked(name: str, check: Callable[[str], Checked], default: str | None = None) -> Checked:
        try:
            return check(read_input(env, name, default=default))
        except InputRefused as exc:
            raise ConfigError(exc.message, hint=f"input {name}: see docs/action.md") from None

    runner = checked("runner", options.runner, AUTO)
    command = read_input(env, "command", default="")
    report_format = checked("report-format", _or_empty(options.report_format), "")
    try:
        options.check_suite(runner, command or None, report_format or None)
    except InputRefused as exc:
        hint = "inputs runner, command and report-format: see docs/action.md"
        raise ConfigError(exc.message, hint=hint) from None
    return {
        "image": checked("image", options.check_image),
        "runner": runner,
        "timeout": checked("timeout", options.timeout, str(DEFAULT_TIMEOUT_S)),
        "max_output": checked("max-output", options.max_output, str(options.DEFAULT_MAX_OUTPUT)),
        "command": command,
        "report_format": report_format,
        "cpus": checked("cpus", _or_empty(_keep(options.parse_cpus)), ""),
        "memory": checked("memory", _keep(options.parse_memory), options.DEFAULT_MEMORY),
        "flake_runs": checked("flake-runs", options.flake_runs, str(DEFAULT_FLAKE_RUNS)),
    }


def _keep(check: Callable[[str], object]) -> Callable[[str], str]:
    """The text itself once ``check`` accepts it (the verifier is given the text)."""

    def keep(text: str) -> str:
        check(text)
        return text

    return keep


def _or_empty(check: Callable[[str], str]) -> Callable[[str], str]:
    """An empty input is not given: ``check`` only what is."""
    return lambda text: check(text) if text else text


def _int(value: str) -> int | str:
    """An integer if the text is one (pydantic strict mode refuses numeric strings)."""
    return int(value) if value.isascii() and value.isdigit() else value


def _bool(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    raise ConfigError(f"input {name!r} must be true or false, got {value[:40]!r}")
