"""workflow-templates/ (an organisation's "New workflow" page) offers exactly the README's two
workflow files, each with the .properties.json GitHub reads beside it."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "workflow-templates"
EXAMPLES = ROOT / "docs" / "examples"
# GitHub's format for a workflow template's metadata
PROPERTIES = {"name", "description", "iconName", "categories", "filePatterns"}


def templates() -> list[Path]:
    return sorted(TEMPLATES.glob("*.yml"))


def test_the_templates_are_the_readmes_two_files() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [t.name for t in templates()] == ["verify-pr-publish.yml", "verify-pr.yml"]
    for template in templates():
        text = template.read_text(encoding="utf-8")
        assert text == (EXAMPLES / template.name).read_text(encoding="utf-8"), template.name
        assert f"```yaml\n{text}```" in readme, template.name


def test_each_template_has_its_properties() -> None:
    found = {p.name.removesuffix(".properties.json") for p in TEMPLATES.glob("*.properties.json")}
    assert found == {t.stem for t in templates()}
    for template in templates():
        props = json.loads((TEMPLATES / f"{template.stem}.properties.json").read_text("utf-8"))
        assert set(props) == PROPERTIES, template.name
        assert props["name"] and props["description"], template.name
        assert (
            props["iconName"].startswith("octicon ")
            or (TEMPLATES / f"{props['iconName']}.svg").is_file()
        )
        assert props["categories"] and all(isinstance(c, str) for c in props["categories"])
        for pattern in props["filePatterns"]:
            re.compile(pattern)  # GitHub matches them against the repository's root files
        assert any(re.search(p, "Dockerfile") for p in props["filePatterns"])
