"""Golden files: each fixture parses to its expected.json (python3 tests/fixtures/regen.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from verify_pr.models.report import RedFlag, TestReport

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regen", FIXTURES / "regen.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REGEN = _regen()
CASES = REGEN.case_dirs()
PARSED = [
    c
    for c in CASES
    if json.loads((c / "expected.json").read_text(encoding="utf-8"))["outcome"] == "parsed"
]


def test_there_are_real_and_hostile_cases() -> None:
    names = [c.name for c in CASES]
    assert sum(n.startswith("hostile-") for n in names) >= 40
    sources = {json.loads((c / "meta.json").read_text())["source"] for c in CASES}
    assert sources == {"real runner", "hand-made"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.parent.name}/{c.name}")
def test_golden(case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    assert REGEN.expected_for(case) == expected


@pytest.mark.parametrize("case", PARSED, ids=lambda c: f"{c.parent.name}/{c.name}")
def test_parsed_golden_round_trips_through_the_model(case: Path) -> None:
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    report = TestReport.model_validate_json(json.dumps(expected["report"]))
    assert report.model_dump(mode="json") == expected["report"]


def test_every_red_flag_is_produced_by_a_parser() -> None:
    """Each RedFlag member is what some real or hostile report parses to: none is dead."""
    produced = set()
    for case in CASES:
        outcome = REGEN.expected_for(case)
        if outcome["outcome"] == "parsed":
            produced |= {RedFlag(flag) for flag in outcome["report"]["red_flags"]}
    assert produced == set(RedFlag), sorted(set(RedFlag) - produced)
