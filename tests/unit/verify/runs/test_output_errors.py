"""The first error line and the missing module, read from a check's output."""

from __future__ import annotations

from verify_pr.verify.runs.output_errors import LINE_MAX_CHARS, first_error_line, missing_module

PYTEST_CONFTEST = b"""ImportError while loading conftest '/work/conftest.py'.
conftest.py:1: in <module>
    raise RuntimeError("boom at load")
E   RuntimeError: boom at load
"""


def test_pytest_marked_error_line_wins() -> None:
    assert first_error_line(PYTEST_CONFTEST) == "RuntimeError: boom at load"


def test_generic_error_line_without_pytest_markers() -> None:
    out = b"starting\nTraceback (most recent call last):\n  File x\nValueError: bad config\n"
    assert first_error_line(out) == "ValueError: bad config"
    assert first_error_line(b"all good\n") is None


def test_missing_module_python_and_node() -> None:
    assert missing_module(b"E   ModuleNotFoundError: No module named 'attrs'\n") == "attrs"
    assert missing_module(b"Error: Cannot find module 'lodash'\nRequire stack:\n") == "lodash"
    assert missing_module(b"E   RuntimeError: boom\n") is None


def test_lines_are_capped_and_escaped() -> None:
    line = first_error_line(b"E   RuntimeError: \x1b[31m" + b"x" * 1000 + b"\n")
    assert line is not None and len(line) <= LINE_MAX_CHARS
    assert "\x1b" not in line and "\\x1b" in line


def test_unquoted_module_name() -> None:
    assert missing_module(b"/usr/bin/python3: No module named pytest\n") == "pytest"
