"""The test suite's own layout: shared helpers live in helper modules, never in test files.

A test module that imports another runs (and collects) the other's fixtures and state and ties
two files' edits together; what several files share lives in a ``helpers.py`` (or a named
``*_helpers.py``) instead. Every import statement counts, inside functions too.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _test_module_imports(source: str) -> list[str]:
    """The ``tests.`` modules named ``test_*`` that a source file imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        found += [
            n for n in names if n.startswith("tests.") and n.split(".")[-1].startswith("test_")
        ]
    return found


def test_no_test_module_imports_another() -> None:
    files = [p for p in TESTS.rglob("*.py") if "fixtures" not in p.relative_to(TESTS).parts]
    assert len(files) > 100, "the scan found too few test files: it is broken"
    bad = [
        f"{path.relative_to(TESTS.parent)} imports {name}"
        for path in files
        for name in _test_module_imports(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "move what they share into a helpers.py:\n" + "\n".join(bad)


def test_the_scan_sees_an_import_of_a_test_module() -> None:
    """Positive control: top-level and in-function imports of a test module are seen; a
    helpers module and the package's own modules are not."""
    source = (
        "from tests.integration.test_corpus import fetch\n"
        "from tests.integration.helpers import verify_pr\n"
        "from verify_pr.verify import cli\n"
        "def f():\n    import tests.unit.verify.test_rules\n"
    )
    assert _test_module_imports(source) == [
        "tests.integration.test_corpus",
        "tests.unit.verify.test_rules",
    ]
