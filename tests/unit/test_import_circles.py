"""No import circles among verify_pr's modules: each shared fact lives below its users.

A circle (``a`` imports ``b`` imports ``a``) hides which module owns a fact and works only
while its imports stay inside functions or under ``TYPE_CHECKING``; so every import statement
counts, wherever it is, as the layering test reads them (``tests/unit/helpers.py``).
"""

from __future__ import annotations

from pathlib import Path

from tests.unit.helpers import PACKAGE, cycles, import_graph


def test_verify_pr_has_no_import_circle() -> None:
    graph = import_graph(PACKAGE)
    assert len(graph) > 50, "the graph reader found too few modules: it is broken"
    found = cycles(graph)
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def _write(root: Path, files: dict[str, str]) -> Path:
    package = root / "src" / "demo"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return package


def test_a_circle_is_caught_in_a_synthetic_package(tmp_path: Path) -> None:
    """Positive control: a circle closed by an import inside a function, one closed under
    TYPE_CHECKING by a relative import, and a clean module beside them."""
    package = _write(
        tmp_path,
        {
            "__init__.py": "from demo import a\n",
            "a.py": "from demo.sub import b\n",
            "sub/__init__.py": "",
            "sub/b.py": "def f():\n    import demo.a\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import X\n",
            "d.py": "from demo import c\n",
            "clean.py": "from demo import a\nimport demo.sub\n",
        },
    )
    found = sorted(cycles(import_graph(package)))
    assert found == [["demo.a", "demo.sub.b", "demo.a"], ["demo.c", "demo.d", "demo.c"]]


def test_a_package_importing_its_children_is_no_circle(tmp_path: Path) -> None:
    """A child importing a sibling through its package (``from pkg import sibling``) while the
    package re-exports the children is the ordinary layout, not a circle."""
    package = _write(
        tmp_path,
        {
            "__init__.py": "from demo.x import X\nfrom demo.y import Y\n",
            "x.py": "X = 1\n",
            "y.py": "from demo import x\nY = x.X\n",
        },
    )
    assert cycles(import_graph(package)) == []
