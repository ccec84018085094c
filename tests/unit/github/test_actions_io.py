import io
import re
from pathlib import Path

import pytest

from verify_pr.errors import ConfigError
from verify_pr.github.actions_io import (
    ANNOTATIONS_PER_LEVEL_PER_STEP,
    SUMMARY_MAX_BYTES,
    ActionsIO,
    AnnotationLevel,
    escape_data,
    escape_property,
)


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


def test_encoding_of_messages_and_properties() -> None:
    assert escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert escape_data("%0A") == "%250A"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_annotation_format(tmp_path: Path) -> None:
    actions, stream = make_io(tmp_path)
    assert actions.annotate(
        AnnotationLevel.ERROR,
        "boom\n::add-mask::x",
        file="src/a,b:c.py",
        line=3,
        end_line=4,
        title="t:1,2",
    )
    assert stream.getvalue() == (
        "::error file=src/a%2Cb%3Ac.py,line=3,endLine=4,title=t%3A1%2C2::boom%0A::add-mask::x\n"
    )


def test_annotation_without_properties(tmp_path: Path) -> None:
    actions, stream = make_io(tmp_path)
    actions.annotate(AnnotationLevel.NOTICE, "hi")
    assert stream.getvalue() == "::notice::hi\n"


def test_annotation_title_is_capped(tmp_path: Path) -> None:
    actions, stream = make_io(tmp_path)
    actions.annotate(AnnotationLevel.WARNING, "m", title="t" * 300)
    assert "title=" + "t" * 255 + "::" in stream.getvalue()


def test_annotation_line_must_be_positive(tmp_path: Path) -> None:
    actions, _ = make_io(tmp_path)
    with pytest.raises(ConfigError, match="line"):
        actions.annotate(AnnotationLevel.ERROR, "m", file="a", line=0)


@pytest.mark.parametrize("level", list(AnnotationLevel))
def test_per_level_step_limit_drops_and_counts(tmp_path: Path, level: AnnotationLevel) -> None:
    actions, stream = make_io(tmp_path)
    sent = [actions.annotate(level, f"m{i}") for i in range(ANNOTATIONS_PER_LEVEL_PER_STEP + 3)]
    assert sent.count(True) == ANNOTATIONS_PER_LEVEL_PER_STEP
    assert actions.dropped_annotations == 3
    assert stream.getvalue().count(f"::{level.value}::") == ANNOTATIONS_PER_LEVEL_PER_STEP
    other = next(x for x in AnnotationLevel if x is not level)
    assert actions.annotate(other, "still room at another level")


def test_add_mask(tmp_path: Path) -> None:
    actions, stream = make_io(tmp_path)
    actions.add_mask("s3cr%t\nline2")
    assert stream.getvalue() == "::add-mask::s3cr%25t%0Aline2\n"
    with pytest.raises(ConfigError):
        actions.add_mask("  ")


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
