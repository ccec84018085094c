"""Every verdict of both enums has its own texts, said once (``verify_pr.render.verdicts``)."""

from __future__ import annotations

import pytest

from verify_pr.models.compare import CompareVerdict
from verify_pr.models.verdict import Verdict
from verify_pr.render.verdicts import (
    compare_check_meaning,
    compare_meaning,
    compare_title,
    label,
    run_check_meaning,
    run_meaning,
)


@pytest.mark.parametrize("verdict", list(Verdict))
def test_every_run_verdict_has_a_meaning_and_a_check_paragraph(verdict: Verdict) -> None:
    clause = run_meaning(verdict)
    assert clause and clause[0].islower() and not clause.endswith(".")
    paragraph = run_check_meaning(verdict)
    assert paragraph.endswith(".") and paragraph[0].isupper()


@pytest.mark.parametrize("verdict", list(CompareVerdict))
def test_every_compare_verdict_has_its_texts(verdict: CompareVerdict) -> None:
    clause = compare_meaning(verdict)
    assert clause and clause[0].islower() and not clause.endswith(".")
    assert compare_title(verdict).startswith(f"{label(verdict)}: ")
    assert compare_check_meaning(verdict).startswith(f"{label(verdict)}: ")


def test_the_texts_tell_the_verdicts_apart() -> None:
    assert len({run_meaning(v) for v in Verdict}) == len(Verdict)
    assert len({run_check_meaning(v) for v in Verdict}) == len(Verdict)
    assert len({compare_meaning(v) for v in CompareVerdict}) == len(CompareVerdict)
    assert len({compare_title(v) for v in CompareVerdict}) == len(CompareVerdict)
    assert len({compare_check_meaning(v) for v in CompareVerdict}) == len(CompareVerdict)


def test_labels_read_as_words() -> None:
    assert label(Verdict.NOT_PROVEN) == "NOT PROVEN"
    assert label(CompareVerdict.VERIFIED) == "VERIFIED"


def test_blocked_says_nothing_about_the_pr_everywhere() -> None:
    """A BLOCKED run is not a verdict on the PR: every text of it says so."""
    texts = [run_meaning(Verdict.BLOCKED), run_check_meaning(Verdict.BLOCKED)]
    texts += [f(CompareVerdict.BLOCKED) for f in (compare_meaning, compare_title)]
    texts.append(compare_check_meaning(CompareVerdict.BLOCKED))
    assert all("says nothing about the PR" in t for t in texts), texts
