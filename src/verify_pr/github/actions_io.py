"""The only writer of ``$GITHUB_OUTPUT``, ``$GITHUB_STEP_SUMMARY`` and workflow commands.

Everything a step tells the runner goes through one ``ActionsIO`` built once from the
environment mapping, so tests pass a dict, two files in ``tmp_path`` and a ``StringIO``.

- Outputs use the env-file protocol (``name<<DELIMITER``) with a fresh random delimiter per
  value; a value that contains the delimiter is refused. There is no ``::set-output``
  fallback: when ``GITHUB_OUTPUT`` or ``GITHUB_STEP_SUMMARY`` is missing the step fails with
  ``ConfigError`` rather than printing a disabled command that the runner would ignore.
- The job summary is capped at 1 MiB per step (counted from the file's current size) and cut
  on a UTF-8 boundary with a notice.
- Command values are encoded (``%``, CR, LF; ``escape_data``).
- Untrusted text goes to the log only inside ``untrusted_log()``, which wraps it in
  ``::stop-commands::<random token>`` ... ``::<token>::`` so it cannot issue commands.

Why our own module and not a library: ``actions-toolkit`` 0.1.15 falls back to the disabled
``::set-output`` command when the env files are missing, has no job summary and pulls in
PyGithub. ``github-action-utils`` 2.0.0 is sound (no dependencies, random delimiters, a
stop-commands helper), but it reads the process-global ``os.environ`` at call time (and one
flag at import time) instead of a mapping read once, a missing file variable surfaces as a
bare ``KeyError`` outside our error root, it regenerates a colliding delimiter where we want a
refusal, and it has no 1 MiB summary cap, so we would wrap nearly every call anyway. The
part we need is this one module of ~150 lines with no dependency, which also keeps the
token-holding publish job's install surface smaller.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from verify_pr.errors import ConfigError
from verify_pr.utf8 import fit_utf8

SUMMARY_MAX_BYTES = 1024 * 1024
"""GitHub's limit for one step's job summary."""
SUMMARY_TRUNCATED_NOTICE = "\n\n> [!WARNING]\n> verify-pr: the job summary was cut at 1 MiB.\n"

_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,99}")
_TOKEN_BYTES = 16


def escape_data(value: str) -> str:
    """Encode a workflow-command message: ``%`` first, then CR and LF."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


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
