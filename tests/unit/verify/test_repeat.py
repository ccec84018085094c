"""The repeated run's command and the split of its combined report (pure; the real container
runs are in tests/integration/test_compare_negatives.py and test_compare.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verify_pr.contract import MAX_TIMEOUT_S
from verify_pr.verify.repeat import COMBINED, repeated, split
from verify_pr.verify.suite import SuitePlan

PLAN = SuitePlan(
    "pytest",
    "python3 -m pytest --junitxml=/work/vpr-report-ab.xml",
    "/work/vpr-report-ab.xml",
    "pytest",
)


def _combined(mark: str, parts: list[bytes]) -> bytes:
    return b"".join(b"\n%s %d\n%s" % (mark.encode(), i, p) for i, p in enumerate(parts, 1))


def test_each_repetition_gets_its_own_report_and_the_selection() -> None:
    loop = repeated(PLAN, "tests/test_a.py::test_x", 3, 60)
    command = loop.plan.command
    assert "/work/vpr-report-ab.xml" not in command  # every repetition has a fresh path
    assert command.count("tests/test_a.py::test_x") == 1  # said once, for every repetition
    assert command.count(' vpr-repeat "$@"') == 3
    assert command.count("timeout -s KILL 60 ") == 3  # each under the run's own timeout
    assert command.count("[ $? = 137 ] || cp ") == 3  # and dropped when it ran out
    assert command.count("cp -R /repo/. /work/") == 2  # repetitions 2 and 3 on a fresh tree
    assert loop.plan.report_path in command and loop.plan.report_path.startswith("/work/")
    assert loop.timeout_s == 3 * 60 + 30
    assert loop.plan.parse_name == COMBINED  # read by ``split``, never whole


def test_no_parser_reads_the_combined_report_whole() -> None:
    from verify_pr.errors import ReportError
    from verify_pr.verify.suite import parse_report

    loop = repeated(PLAN, "", 2, 60)
    with pytest.raises(ReportError, match="no parser"):
        parse_report(loop.plan, b"\n" + loop.mark.encode() + b" 1\n<testsuites/>", Path())


def test_the_command_stays_short_with_many_long_ids() -> None:
    words = " ".join(f"tests/test_a.py::test_{'x' * 900}[{i}]" for i in range(10))
    assert len(repeated(PLAN, words, 20, 60).plan.command) < 32 * 1024  # 128 KiB is the cap


def test_the_sandbox_timeout_stays_within_the_contract() -> None:
    assert repeated(PLAN, "", 3, MAX_TIMEOUT_S).timeout_s == MAX_TIMEOUT_S
    with pytest.raises(ValueError, match="at least one"):
        repeated(PLAN, "", 0, 60)


def test_marks_are_fresh_per_run() -> None:
    assert repeated(PLAN, "", 2, 60).mark != repeated(PLAN, "", 2, 60).mark


def test_split_returns_each_part_in_order() -> None:
    loop = repeated(PLAN, "", 3, 60)
    data = _combined(loop.mark, [b"<a/>", b"<b/>\n", b"<c/>"])
    assert split(data, loop) == [b"<a/>", b"<b/>\n", b"<c/>"]


def test_a_missing_part_is_none_and_shifts_nothing() -> None:
    loop = repeated(PLAN, "", 3, 60)
    assert split(_combined(loop.mark, [b"<a/>", b"", b"<c/>"]), loop) == [b"<a/>", None, b"<c/>"]


@pytest.mark.parametrize(
    "data",
    [
        b"",  # no report at all
        b"junk before" + b"\n%s 1\n<a/>",  # bytes before the first part
        b"\n%s 1\n<a/>\n%s 1\n<b/>",  # a part twice
        b"\n%s 1\n<a/>\n%s 4\n<b/>",  # a part past the count
    ],
)
def test_a_combined_report_that_is_not_ours_gives_no_part(data: bytes) -> None:
    loop = repeated(PLAN, "", 3, 60)
    mark = loop.mark.encode()
    filled = data.replace(b"%s", mark)
    assert split(filled, loop) == [None, None, None]


def test_another_runs_mark_does_not_split() -> None:
    loop, other = repeated(PLAN, "", 2, 60), repeated(PLAN, "", 2, 60)
    data = _combined(loop.mark, [b"<a/>" + _combined(other.mark, [b"<x/>"]), b"<b/>"])
    first, second = split(data, loop)
    assert first is not None and first.startswith(b"<a/>") and other.mark.encode() in first
    assert second == b"<b/>"
