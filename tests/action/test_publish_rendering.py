"""Rendering hostile strings (issue 15, part 5), through the real publish entry point.

``GH-<n>`` is neutralised like ``#<n>``; bidi overrides and control characters are made visible
in every string that reaches Markdown (reasons, runner names, output text, test ids) and in
annotations; annotation lines stay within the file's length. Each test first checks that the
hostile characters really are in the artifact (so it cannot pass by never sending them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.action.compare_builders import case, compare_artifact, compare_result
from tests.action.helpers import (
    artifact,
    verdict_file,
)
from tests.github_fake.server import FakeGitHub
from verify_pr.models.report import TestCase, TestStatus
from verify_pr.models.verdict import Verdict

Publish = Callable[..., dict[str, Any]]
BIDI = "\u202e"  # RIGHT-TO-LEFT OVERRIDE
HOSTILE = f"see GH-123 and gh-7 {BIDI}txt.exe\x1b[2J\x00\x07\u2066end"
RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
GH_LINK = re.compile(r"(?i)\bgh-\d")
FENCED = re.compile(r"(?ms)^(`{3,})\n.*?^\1\n")


def _clean(text: str) -> None:
    """No raw control or bidi character anywhere; no live GH-<n> outside code (GitHub links
    no reference inside a code block)."""
    assert RAW.search(text) is None, repr(RAW.search(text))
    assert GH_LINK.search(FENCED.sub("", text)) is None, text


def test_reasons_runner_output_and_test_ids_are_made_visible(
    publish: Publish, github_fake: FakeGitHub
) -> None:
    failing = TestCase.build(
        name=f"test_{HOSTILE}",
        classname=None,
        file="test_ok.py",
        line=2,
        status=TestStatus.FAILED,
        message=HOSTILE,
    )
    verdict = verdict_file(Verdict.FAIL, (failing,)).model_copy(
        update={"reasons": (HOSTILE,), "runner": f"pytest{BIDI}"}
    )
    output = f"\x1b[31mFAILED\x1b[0m {HOSTILE}\n".encode()
    # the hostile characters are really sent (the strict models keep them in these fields)
    assert BIDI in verdict.reasons[0] and BIDI in verdict.runner and b"\x1b" in output
    check = publish(artifact(verdict, **{"output.txt": output}))
    assert check["conclusion"] == "failure"
    summary, text = check["output"]["summary"], check["output"]["text"]
    for rendered in (summary, text):
        _clean(rendered)
    assert "\\u202e" in summary.replace("\\\\", "\\")  # shown, not silently dropped
    assert "GH\u200d-123" in summary
    assert "FAILED" in text and "[31m" not in text  # colour codes dropped from the output
    (run_id,) = github_fake.check_runs
    notes = github_fake.annotations[run_id]
    assert notes
    for note in notes:  # plain text, not Markdown: only controls and bidi matter here
        assert RAW.search(note["message"]) is None and RAW.search(note["title"]) is None


def test_compare_reasons_and_ids_are_made_visible(publish: Publish) -> None:
    base = verdict_file(Verdict.FAIL, (case(TestStatus.FAILED, HOSTILE),))
    head = verdict_file(Verdict.PASS, (case(TestStatus.PASSED, HOSTILE),))
    result = compare_result(base, head, reasons=(HOSTILE,))
    check = publish(compare_artifact(result))
    assert check["conclusion"] == "success", check["output"]["summary"]
    _clean(check["output"]["summary"])
    _clean(check["output"]["text"] or "")


def test_annotation_lines_stay_within_the_file(publish: Publish, github_fake: FakeGitHub) -> None:
    github_fake.blob_sizes["tests/test_x.py"] = 40  # a 40-byte file has at most 41 lines
    cases = tuple(
        TestCase.build(
            name=f"t{line}",
            classname=None,
            file="tests/test_x.py",
            line=line,
            status=TestStatus.FAILED,
            message="boom",
        )
        for line in (3, 41, 42, 10**9)
    )
    publish(artifact(verdict_file(Verdict.FAIL, cases)))
    (run_id,) = github_fake.check_runs
    lines = [(n["title"], n["start_line"], n["end_line"]) for n in github_fake.annotations[run_id]]
    # positive control: lines that fit are kept; the rest go on line 1
    assert lines == [("t3", 3, 3), ("t41", 41, 41), ("t42", 1, 1), ("t1000000000", 1, 1)]
