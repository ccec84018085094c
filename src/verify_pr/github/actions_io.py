"""The only writer of ``$GITHUB_OUTPUT``, ``$GITHUB_STEP_SUMMARY`` and workflow commands.

Everything a step tells the runner goes through one ``ActionsIO`` built once from the
environment mapping, so tests pass a dict, two files in ``tmp_path`` and a ``StringIO``.

- Outputs use the env-file protocol (``name<<DELIMITER``) with a fresh random delimiter per
  value; a value that contains the delimiter is refused. There is no ``::set-output``
  fallback: when ``GITHUB_OUTPUT`` or ``GITHUB_STEP_SUMMARY`` is missing the step fails with
  ``ConfigError`` rather than printing a disabled command that the runner would ignore.
- The job summary is capped at 1 MiB per step (counted from the file's current size) and cut
  on a UTF-8 boundary with a notice.
- Command values are encoded (``%``, CR, LF; also ``:`` and ``,`` in properties), and the
  runner's per-step annotation limit (10 per level) is counted here: past it an annotation is
  dropped and counted instead of silently vanishing in the runner.
- Untrusted text goes to the log only inside ``untrusted_log()``, which wraps it in
  ``::stop-commands::<random token>`` ... ``::<token>::`` so it cannot issue commands.

Why our own module and not a library: ``actions-toolkit`` 0.1.15 falls back to the disabled
``::set-output`` command when the env files are missing, has no job summary and pulls in
PyGithub. ``github-action-utils`` 2.0.0 is sound (no dependencies, random delimiters, a
stop-commands helper), but it reads the process-global ``os.environ`` at call time (and one
flag at import time) instead of a mapping read once, a missing file variable surfaces as a
bare ``KeyError`` outside our error root, it regenerates a colliding delimiter where we want a
refusal, and it has neither the 1 MiB summary cap nor the annotation limits, so we would wrap
nearly every call anyway. The part we need is this one module of ~200 lines with no
dependency, which also keeps the token-holding publish job's install surface smaller.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TextIO

from verify_pr.errors import ConfigError
from verify_pr.utf8 import fit_utf8

SUMMARY_MAX_BYTES = 1024 * 1024
"""GitHub's limit for one step's job summary."""
ANNOTATIONS_PER_LEVEL_PER_STEP = 10
"""The runner keeps at most this many annotations of each level from one step."""
ANNOTATION_TITLE_MAX_CHARS = 255
SUMMARY_TRUNCATED_NOTICE = "\n\n> [!WARNING]\n> verify-pr: the job summary was cut at 1 MiB.\n"

_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,99}")
_TOKEN_BYTES = 16


class AnnotationLevel(StrEnum):
    """The workflow-command annotation levels."""

    NOTICE = "notice"
    WARNING = "warning"
    ERROR = "error"


def escape_data(value: str) -> str:
    """Encode a workflow-command message: ``%`` first, then CR and LF."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Encode a workflow-command property value: as a message, plus ``:`` and ``,``."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _random_token() -> str:
    return secrets.token_hex(_TOKEN_BYTES)


def _required_path(env: Mapping[str, str], name: str) -> Path:
    value = env.get(name, "")
    if not value:
        raise ConfigError(
            f"{name} is not set",
            hint="run inside a GitHub Actions step; verify-pr never falls back to "
            "the disabled ::set-output command",
        )
    return Path(value)


class ActionsIO:
    """Writes outputs, the job summary and workflow commands for one step."""

    def __init__(
        self,
        *,
        output_path: Path,
        summary_path: Path,
        stream: TextIO,
        token: Callable[[], str] = _random_token,
    ) -> None:
        self._output_path = output_path
        self._summary_path = summary_path
        self._stream = stream
        self._token = token
        self._annotations: dict[AnnotationLevel, int] = dict.fromkeys(AnnotationLevel, 0)
        self.dropped_annotations = 0

    @classmethod
    def from_env(cls, env: Mapping[str, str], stream: TextIO) -> ActionsIO:
        """Build from the step's environment; ``ConfigError`` when a file variable is missing."""
        return cls(
            output_path=_required_path(env, "GITHUB_OUTPUT"),
            summary_path=_required_path(env, "GITHUB_STEP_SUMMARY"),
            stream=stream,
        )

    @property
    def stream(self) -> TextIO:
        """The step's log (plain lines; commands go through the methods)."""
        return self._stream

    # -- outputs -------------------------------------------------------------------------

    def set_output(self, name: str, value: str) -> None:
        """Append ``name<<DELIM`` / value / ``DELIM`` to ``$GITHUB_OUTPUT``."""
        if not _OUTPUT_NAME.fullmatch(name):
            raise ConfigError(f"invalid output name {name!r}")
        delimiter = f"ghadelimiter_{self._token()}"
        if delimiter in value:
            raise ConfigError(f"the value of output {name!r} contains its delimiter; refused")
        record = f"{name}<<{delimiter}\n{value}\n{delimiter}\n"
        self._append(self._output_path, record.encode("utf-8"))

    # -- job summary ---------------------------------------------------------------------

    def append_summary(self, markdown: str) -> bool:
        """Append Markdown to the step summary within 1 MiB; return whether it was cut."""
        try:
            used = self._summary_path.stat().st_size
        except FileNotFoundError:
            used = 0
        except OSError as exc:
            raise ConfigError(f"cannot read the job summary file: {exc}") from exc
        budget = max(SUMMARY_MAX_BYTES - used, 0)
        text, cut = fit_utf8(markdown, budget, SUMMARY_TRUNCATED_NOTICE)
        if text:
            self._append(self._summary_path, text.encode("utf-8"))
        return cut

    # -- workflow commands ---------------------------------------------------------------

    def add_mask(self, value: str) -> None:
        """Ask the runner to mask ``value`` in the log from now on."""
        if not value.strip():
            raise ConfigError("refusing to mask an empty value")
        self._command("add-mask", escape_data(value))

    def debug(self, message: str) -> None:
        """A debug line (shown when step debug logging is on)."""
        self._command("debug", escape_data(message))

    def annotate(
        self,
        level: AnnotationLevel,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        end_line: int | None = None,
        col: int | None = None,
        end_column: int | None = None,
        title: str | None = None,
    ) -> bool:
        """Emit ``::error file=..,line=..,title=..::message``; False when over the step limit."""
        if self._annotations[level] >= ANNOTATIONS_PER_LEVEL_PER_STEP:
            self.dropped_annotations += 1
            return False
        self._annotations[level] += 1
        properties: list[tuple[str, str]] = []
        if file is not None:
            properties.append(("file", file))
        for key, number in (
            ("line", line),
            ("endLine", end_line),
            ("col", col),
            ("endColumn", end_column),
        ):
            if number is not None:
                if number < 1:
                    raise ConfigError(f"annotation {key} must be >= 1, got {number}")
                properties.append((key, str(number)))
        if title is not None:
            properties.append(("title", title[:ANNOTATION_TITLE_MAX_CHARS]))
        encoded = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        self._command(f"{level.value} {encoded}".rstrip(), escape_data(message))
        return True

    @contextmanager
    def untrusted_log(self) -> Iterator[Callable[[str], None]]:
        """Yield a writer whose text the runner will not parse as workflow commands."""
        token = self._token()
        self._command("stop-commands", token)
        resume = f"::{token}::"

        def write(text: str) -> None:
            if token in text:
                # Practically impossible with 128 random bits, but never let it through.
                text = text.replace(token, "[redacted token]")
            self._stream.write(text if text.endswith("\n") else text + "\n")

        try:
            yield write
        finally:
            self._stream.write(f"{resume}\n")
            self._stream.flush()

    # -- plumbing ------------------------------------------------------------------------

    def _command(self, command: str, value: str) -> None:
        self._stream.write(f"::{command}::{value}\n")
        self._stream.flush()

    @staticmethod
    def _append(path: Path, data: bytes) -> None:
        try:
            with path.open("ab") as handle:
                handle.write(data)
        except OSError as exc:
            raise ConfigError(f"cannot write {path}: {exc}") from exc
