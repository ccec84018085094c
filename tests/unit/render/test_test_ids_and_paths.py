"""What a person reads is true: a test id as the runner names it, and a PR that changes only
docs is not said to change tests."""

from __future__ import annotations

import pytest

from tests.golden.cases import compare_results
from verify_pr.render.compared import paths_line
from verify_pr.render.test_ids import runner_id


@pytest.mark.parametrize(
    ("report_id", "shown"),
    [
        (
            "tests/test_pricing.py::tests.test_pricing::test_ten_percent_off",
            "tests/test_pricing.py::test_ten_percent_off",
        ),
        ("test_a.py::test_a::test_a", "test_a.py::test_a"),
        (
            "tests/test_x.py::tests.test_x.TestA.TestB::test_y[1-2]",
            "tests/test_x.py::TestA::TestB::test_y[1-2]",
        ),
        ("t/test_p.py::t.test_p::test_z[a::b]", "t/test_p.py::test_z[a::b]"),
        # not below the file's module (collected elsewhere): kept as the report names it
        (
            "tests/helpers.py::tests.test_other::test_q",
            "tests/helpers.py::tests.test_other::test_q",
        ),
        # jest, vitest and non-Python items are not pytest's xunit1 ids: unchanged
        ("src/sum.test.js::sum adds", "src/sum.test.js::sum adds"),
        ("docs/README.txt::docs.README.txt::README.txt", "docs/README.txt::README.txt"),
        ("plain", "plain"),
    ],
)
def test_runner_id(report_id: str, shown: str) -> None:
    assert runner_id(report_id) == shown


def test_a_docs_only_pr_changes_no_test_path() -> None:
    """README.md runs in its PR version on both sides, so it is listed with the test paths, but
    it is no test: the line counts it apart."""
    base = compare_results()["nothing-to-prove"]
    docs_only = base.model_copy(
        update={"test_paths": ("README.md",), "code_paths": (), "other_paths": ("README.md",)}
    )
    line = paths_line(docs_only, text=str)
    assert line is not None and "1 test path" not in line
    assert line.startswith("The PR changes 0 test path(s), 0 code path(s)")
    assert line.endswith("and 1 path(s) that are neither test nor code (docs, data or config).")
    # positive control: a real test path is still counted as one
    with_test = docs_only.model_copy(update={"test_paths": ("README.md", "tests/test_a.py")})
    assert (paths_line(with_test, text=str) or "").startswith("The PR changes 1 test path(s), ")
