import re
from collections.abc import Callable

import pytest

from verify_pr.markdown import (
    CHECK_RUN_TEXT_MAX_BYTES,
    TRUNCATED_NOTICE,
    ZWJ,
    escape_inline,
    fenced_block,
    fit_markdown,
    inline_code,
    table,
    visible,
)


@pytest.mark.parametrize("ch", list("|\\`*_[]<>&~"))
def test_markdown_punctuation_is_backslash_escaped(ch: str) -> None:
    assert escape_inline(f"a{ch}b") == f"a\\{ch}b"


def test_newlines_become_breaks() -> None:
    assert escape_inline("a\nb\r\nc\rd") == "a<br>b<br>c<br>d"


def test_mentions_and_issue_references_are_neutralised() -> None:
    out = escape_inline("ping @octocat and @github/security about #1")
    assert "@octocat" not in out
    assert re.search(r"@[A-Za-z]", out) is None
    assert re.search(r"#\d", out) is None
    assert f"@{ZWJ}octocat" in out
    assert f"#{ZWJ}1" in out


def test_heading_and_links_are_inert() -> None:
    out = escape_inline("# title [x](https://evil.example) www.evil.example <img src=x>")
    assert not out.startswith("# ")
    assert "](" not in out.replace("\\]", "")
    assert "https://" not in out
    assert "www." not in out
    assert re.search(r"(?<!\\)[<>]", out) is None


def test_inline_code_uses_a_longer_delimiter() -> None:
    assert inline_code("a``b") == "```a``b```"
    assert inline_code("`x`") == "`` `x` ``"
    assert inline_code("a\nb") == "`a b`"


def test_fence_is_longer_than_any_backtick_run() -> None:
    block = fenced_block("x\n`````\n```` still inside\n")
    fence = block.split("\n", 1)[0]
    assert fence == "``````"
    assert block.endswith("\n" + fence + "\n")
    lines = block.split("\n")
    assert lines.count(fence) == 2


def test_fence_minimum_and_info_string() -> None:
    assert fenced_block("plain", "text") == "```text\nplain\n```\n"
    assert fenced_block("") == "```\n```\n"
    with pytest.raises(ValueError, match="info"):
        fenced_block("x", "py\n# evil")


def test_fence_normalises_carriage_returns() -> None:
    assert fenced_block("a\r\nb\rc") == "```\na\nb\nc\n```\n"


def test_table_escapes_cells() -> None:
    out = table(["name", "result"], [["test|pipe @me", "fail\nline"]])
    assert out.splitlines() == [
        "| name | result |",
        "|---|---|",
        f"| test\\|pipe @{ZWJ}me | fail<br>line |",
    ]
    with pytest.raises(ValueError, match="cell"):
        table(["a"], [["1", "2"]])


def test_fit_leaves_small_documents_alone() -> None:
    assert fit_markdown("short") == ("short", False)
    exact = "a" * CHECK_RUN_TEXT_MAX_BYTES
    assert fit_markdown(exact) == (exact, False)


def test_fit_cuts_bytes_on_a_utf8_boundary_with_notice() -> None:
    text = "€" * 30000  # 90000 bytes, 30000 characters: fits by characters, not by bytes
    out, cut = fit_markdown(text)
    assert cut
    data = out.encode("utf-8")
    assert len(data) <= CHECK_RUN_TEXT_MAX_BYTES
    assert out.endswith(TRUNCATED_NOTICE)
    assert set(out[: -len(TRUNCATED_NOTICE)]) == {"€"}


def test_fit_closes_a_fence_left_open_by_the_cut() -> None:
    doc = "## Output\n" + fenced_block("line\n" * 20000)
    out, cut = fit_markdown(doc, max_bytes=1000)
    assert cut
    assert len(out.encode("utf-8")) <= 1000
    body = out[: -len(TRUNCATED_NOTICE)]
    assert body.endswith("\n```")  # the fence is closed before the notice
    assert body.count("```") == 2


def test_fit_with_a_long_fence() -> None:
    doc = fenced_block("`````` in the output\n" * 500)
    out, _ = fit_markdown(doc, max_bytes=700)
    assert len(out.encode()) <= 700
    body = out[: -len(TRUNCATED_NOTICE)]
    assert body.endswith("\n```````")


def test_fit_with_a_budget_below_the_notice() -> None:
    out, cut = fit_markdown("x" * 100, max_bytes=10)
    assert cut
    assert len(out.encode()) <= 10


@pytest.mark.parametrize("text", ["GH-123", "gh-7", "see Gh-1.", "(GH-42)"])
def test_gh_references_are_neutralised_like_hash_references(text: str) -> None:
    out = escape_inline(text)
    assert re.search(r"(?i)gh-\d", out) is None
    assert re.search(f"(?i)gh{ZWJ}-\\d", out)


def test_gh_without_a_number_is_left_alone() -> None:
    assert escape_inline("GH-pages and ghost-1") == "GH-pages and ghost-1"


HIDDEN = "a\u202eb\u2066c\x00d\x1be\x7ff\u200bg\ufeffh\u2028i"


@pytest.mark.parametrize("render", [escape_inline, inline_code, fenced_block])
def test_controls_and_bidi_are_made_visible(render: Callable[[str], str]) -> None:
    out = render(HIDDEN)
    assert (
        re.search("[\x00-\x08\x0b-\x1f\x7f\u200b\u202a-\u202e\u2066-\u2069\ufeff\u2028]", out)
        is None
    )
    for shown in ("u202e", "u2066", "x00", "x1b", "x7f", "u200b", "ufeff", "u2028"):
        assert shown in out, (shown, out)


def test_visible_keeps_tabs_newlines_and_emoji_joiners() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert visible(f"a\tb\nc {family} é") == f"a\tb\nc {family} é"


def test_terminal_colours_are_dropped_from_output_blocks() -> None:
    assert fenced_block("\x1b[31mFAILED\x1b[0m x\n") == "```\nFAILED x\n```\n"
