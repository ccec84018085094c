"""bun_markers: a bun test file that leaves an inverted status possible is doubtful."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.verify.bun_markers import doubtful


@pytest.mark.parametrize(
    ("text", "doubt"),
    [
        ('test("a", () => {});\n', False),
        ("const { failing } = test;\n", True),
        ("const {failing: f} = test;\n", True),
        ('test["fail" + "ing"]("a", f);\n', True),
        ("it.todo('later');\n", True),
        ("const t = test; t.failing('a', f);\n", True),
    ],
)
def test_a_file_that_could_mark_a_test_is_doubtful(tmp_path: Path, text: str, doubt: bool) -> None:
    (tmp_path / "a.test.js").write_text(text)
    assert ("a.test.js" in doubtful(tmp_path, ["a.test.js"])) is doubt


def test_a_file_that_cannot_be_read_is_doubtful(tmp_path: Path) -> None:
    (tmp_path / "link.test.js").symlink_to("/etc/passwd")
    found = doubtful(tmp_path, ["missing.test.js", "link.test.js", "../x.test.js", None])
    assert set(found) == {"missing.test.js", "link.test.js", "../x.test.js"}
