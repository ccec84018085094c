"""Every presentation output, byte for byte, against its golden file (``tests/golden``).

Regenerate with ``python3 -I tests/golden/regen.py`` and review the diff.
"""

from __future__ import annotations

import pytest

from tests.golden.cases import GOLDEN, compare_results, outputs, run_verdicts
from verify_pr.models.compare import CompareVerdict
from verify_pr.models.verdict import Verdict

OUTPUTS = outputs()


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_output_matches_its_golden_file(name: str) -> None:
    golden = GOLDEN / name
    assert golden.is_file(), f"no golden file {name}: run tests/golden/regen.py"
    assert OUTPUTS[name]() == golden.read_text(encoding="utf-8")


def test_every_golden_file_is_rendered_by_a_case() -> None:
    on_disk = {p.name for p in GOLDEN.iterdir() if p.suffix in (".md", ".txt")}
    assert on_disk == set(OUTPUTS)


def test_the_cases_walk_every_verdict() -> None:
    assert {v.verdict for v in run_verdicts().values()} == set(Verdict)
    assert {r.verdict for r in compare_results().values()} == set(CompareVerdict)


def test_positive_control_a_changed_model_changes_every_output() -> None:
    """One more reason on every model: no output may still match its golden file."""
    runs = {
        name: v.model_copy(update={"reasons": (*v.reasons, "one more reason")})
        for name, v in run_verdicts().items()
    }
    compares = {
        name: r.model_copy(update={"reasons": (*r.reasons, "one more reason")})
        for name, r in compare_results().items()
    }
    changed = outputs(runs, compares)
    assert set(changed) == set(OUTPUTS)
    for name, render in changed.items():
        if name == "check-refused.md":  # a refused artifact shows no model at all
            continue
        assert render() != (GOLDEN / name).read_text(encoding="utf-8"), name
