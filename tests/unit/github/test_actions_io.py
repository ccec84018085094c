import io
import re
from pathlib import Path

import pytest

from verify_pr.errors import ConfigError
from verify_pr.github.actions_io import SUMMARY_MAX_BYTES, ActionsIO, escape_data


class Tokens:
    """A fake token source: predictable values, in order."""

    def __init__(self, *values: str) -> None:
        self.values = list(values)

    def __call__(self) -> str:
        return self.values.pop(0)


def make_io(tmp_path: Path, *tokens: str) -> tuple[ActionsIO, io.StringIO]:
    stream = io.StringIO()
    kwargs = {"token": Tokens(*tokens)} if tokens else {}
    actions = ActionsIO(
        output_path=tmp_path / "output",
        summary_path=tmp_path / "summary",
        stream=stream,
        **kwargs,
    )
    return actions, stream


def parse_outputs(text: str) -> dict[str, str]:
    """The runner's reading of the env file (heredoc form only)."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines) - 1:
        name, delimiter = lines[i].split("<<", 1)
        end = lines.index(delimiter, i + 1)
        values[name] = "\n".join(lines[i + 1 : end])
        i = end + 1
    return values


def test_from_env_reads_both_files(tmp_path: Path) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "o"), "GITHUB_STEP_SUMMARY": str(tmp_path / "s")}
    actions = ActionsIO.from_env(env, io.StringIO())
    actions.set_output("verdict", "pass")
    assert parse_outputs((tmp_path / "o").read_text()) == {"verdict": "pass"}


@pytest.mark.parametrize("missing", ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"])
def test_from_env_fails_loudly_without_file_variables(tmp_path: Path, missing: str) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "o"), "GITHUB_STEP_SUMMARY": str(tmp_path / "s")}
    env[missing] = ""
    with pytest.raises(ConfigError, match=missing) as info:
        ActionsIO.from_env(env, io.StringIO())
    assert "set-output" in info.value.diagnostics()


def test_output_is_never_a_set_output_command(tmp_path: Path) -> None:
    actions, stream = make_io(tmp_path)
    actions.set_output("a", "1")
    assert stream.getvalue() == ""


def test_multiline_value_round_trips_with_random_delimiter(tmp_path: Path) -> None:
    actions, _ = make_io(tmp_path)
    value = "line one\nEOF\nghadelimiter_\n::set-output name=x::y"
    actions.set_output("report", value)
    actions.set_output("other", "")
    text = (tmp_path / "output").read_text()
    assert parse_outputs(text) == {"report": value, "other": ""}
    delimiters = re.findall(r"<<(ghadelimiter_[0-9a-f]{32})\n", text)
    assert len(set(delimiters)) == 2


def test_value_containing_the_delimiter_is_refused(tmp_path: Path) -> None:
    actions, _ = make_io(tmp_path, "abc")
    with pytest.raises(ConfigError, match="delimiter"):
        actions.set_output("x", "before\nghadelimiter_abc\nevil<<x")
    assert not (tmp_path / "output").exists()


@pytest.mark.parametrize("name", ["", "a b", "a<<b", "x\ny", "a=b", "1abc"])
def test_bad_output_names_are_refused(tmp_path: Path, name: str) -> None:
    actions, _ = make_io(tmp_path)
    with pytest.raises(ConfigError, match="invalid output name"):
        actions.set_output(name, "v")


def test_summary_appends(tmp_path: Path) -> None:
    actions, _ = make_io(tmp_path)
    assert actions.append_summary("# one\n") is False
    assert actions.append_summary("two\n") is False
    assert (tmp_path / "summary").read_text() == "# one\ntwo\n"


def test_summary_is_capped_at_one_mib_on_a_utf8_boundary(tmp_path: Path) -> None:
    actions, _ = make_io(tmp_path)
    (tmp_path / "summary").write_bytes(b"x" * 1000)
    assert actions.append_summary("é" * SUMMARY_MAX_BYTES) is True
    data = (tmp_path / "summary").read_bytes()
    assert len(data) <= SUMMARY_MAX_BYTES
    text = data.decode("utf-8")  # no split character
    assert text.endswith("the job summary was cut at 1 MiB.\n")
    # A full summary takes nothing more, not even a second notice.
    assert actions.append_summary("more") is True
    assert (tmp_path / "summary").read_bytes() == data


def test_summary_exactly_at_the_cap_is_not_cut(tmp_path: Path) -> None:
    actions, _ = make_io(tmp_path)
    assert actions.append_summary("a" * SUMMARY_MAX_BYTES) is False
    assert (tmp_path / "summary").stat().st_size == SUMMARY_MAX_BYTES


def test_encoding_of_messages() -> None:
    assert escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert escape_data("%0A") == "%250A"


def test_untrusted_log_is_fenced_by_a_random_token(tmp_path: Path) -> None:
    actions, stream = make_io(tmp_path, "f00d")
    with actions.untrusted_log() as write:
        write("::set-env name=PATH::/evil")
        write("::f00d:: trying to resume\n")
    assert stream.getvalue().splitlines() == [
        "::stop-commands::f00d",
        "::set-env name=PATH::/evil",
        "::[redacted token]:: trying to resume",
        "::f00d::",
    ]


def test_untrusted_log_resumes_commands_on_error(tmp_path: Path) -> None:
    actions, stream = make_io(tmp_path, "beef")

    def body() -> None:
        with actions.untrusted_log() as write:
            write("partial")
            raise RuntimeError("x")

    with pytest.raises(RuntimeError):
        body()
    assert stream.getvalue().endswith("::beef::\n")


def test_default_tokens_are_random(tmp_path: Path) -> None:
    actions, stream = make_io(tmp_path)
    for _ in range(2):
        with actions.untrusted_log():
            pass
    starts = re.findall(r"::stop-commands::([0-9a-f]{32})\n", stream.getvalue())
    assert len(set(starts)) == 2
