"""The README stays short enough to read: at most 2,000 words (``wc -w``), YAML included.
Reference material belongs in docs/, linked from it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_WORDS = 2000


def words(text: str) -> int:
    """What ``wc -w`` counts: runs of characters between whitespace."""
    return len(text.split())


def test_the_readme_is_at_most_2000_words() -> None:
    count = words((ROOT / "README.md").read_text(encoding="utf-8"))
    assert count <= MAX_WORDS, f"README.md has {count} words; move reference material to docs/"


def test_the_count_is_wc_s() -> None:
    assert words("a b\tc\n\nd  `e`\n") == 5
