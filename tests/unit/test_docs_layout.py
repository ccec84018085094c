"""docs/layout.md lists exactly the package's sub-packages and top-level modules (no drift)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "verify_pr"
LAYOUT = ROOT / "docs" / "layout.md"


def listed(doc: str) -> set[str]:
    """Names in the layout block's ``src/verify_pr/`` entries: ``models/``, ``errors.py``..."""
    block = doc.split("\n## Layout\n", 1)[1].split("```", 2)[1]
    lines = block.split("src/verify_pr/\n", 1)[1].splitlines()
    names: set[str] = set()
    for line in lines:
        if not line.startswith("  "):
            break  # the next top-level entry (tests/)
        head = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        if line.startswith("   "):
            continue  # a description's continuation line
        names |= {name.strip() for name in head.split(",")}
    return names


def actual() -> set[str]:
    packages = {f"{p.parent.name}/" for p in PACKAGE.glob("*/__init__.py")}
    modules = {p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    return packages | modules


def test_the_layout_lists_every_package_and_module() -> None:
    doc = LAYOUT.read_text(encoding="utf-8")
    assert listed(doc) == actual()


def test_the_layout_check_sees_a_missing_and_an_extra_entry() -> None:
    """Positive control: drop the github/ line, or add one for a package that does not exist."""
    doc = LAYOUT.read_text(encoding="utf-8")
    assert "github/" in actual()
    line = next(x for x in doc.splitlines() if x.startswith("  github/"))
    assert "github/" not in listed(doc.replace(line + "\n", ""))
    extra = doc.replace("  contract.py ", "  contract.py, ghost.py ", 1)
    assert listed(extra) - actual() == {"ghost.py"}
    assert {"models/", "sandbox/", "verify/", "errors.py"} <= listed(doc)


def test_the_layout_names_every_module_of_verify_and_runners() -> None:
    """Each module of the two packages the verdict lives in is named in the layout block (the
    runner packages by their folder, their modules by name)."""
    block = LAYOUT.read_text(encoding="utf-8").split("\n## Layout\n", 1)[1].split("```", 2)[1]
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", block))
    missing = [
        p.relative_to(PACKAGE).as_posix()
        for layer in ("verify", "runners")
        for p in sorted((PACKAGE / layer).rglob("*.py"))
        if (p.stem if p.stem != "__init__" else p.parent.name) not in words
    ]
    assert not missing, missing


def test_the_layout_names_each_stage_of_verify_as_a_folder() -> None:
    """verify's sub-packages (its stages) are named as folders, ``runs/``, not as words alone."""
    block = LAYOUT.read_text(encoding="utf-8").split("\n## Layout\n", 1)[1].split("```", 2)[1]
    stages = sorted(p.parent.name for p in (PACKAGE / "verify").glob("*/__init__.py"))
    assert stages, "verify has no sub-package: the check is looking in the wrong place"
    assert [s for s in stages if f" {s}/ (" not in " ".join(block.split())] == []
