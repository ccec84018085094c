"""Every relative link of README.md and docs/*.md reaches a file of this repository, and every
``#anchor`` a heading of the file it names (GitHub's slugs): the README points into docs/ for
everything it leaves out, so a moved section must not leave a link that goes nowhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
# [text](target) and ![alt](target), outside code spans; a target with a scheme is not ours
_LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"`[^`\n]*`")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but ``-`` and ``_`` dropped,
    spaces as ``-``."""
    text = _CODE.sub(lambda m: m.group(0).strip("`"), heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.MULTILINE)}


def broken(path: Path, text: str) -> list[str]:
    found = []
    for target in _LINK.findall(_CODE.sub("", _FENCE.sub("", text))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # https:, mailto:
        name, _, anchor = target.partition("#")
        linked = (path.parent / name).resolve() if name else path
        if not linked.exists() or ROOT not in (linked, *linked.parents):
            found.append(f"{path.name}: {target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            found.append(f"{path.name}: {target}: no heading #{anchor} in {linked.name}")
    return found


def test_every_relative_link_reaches_a_file_and_a_heading() -> None:
    assert len(DOCS) >= 10, DOCS  # README and the docs it points into
    problems = [p for path in DOCS for p in broken(path, path.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems)


def test_the_link_check_sees_a_missing_file_and_a_missing_heading() -> None:
    """Positive control: a link to a file that is not there, and one to a heading that is not."""
    readme = ROOT / "README.md"
    text = "[a](docs/gone.md) [b](docs/action.md#no-such-heading) [c](docs/action.md) `[d](x.md)`"
    assert broken(readme, text) == [
        "README.md: docs/gone.md: no such file",
        "README.md: docs/action.md#no-such-heading: no heading #no-such-heading in action.md",
    ]
    assert slug("How `scripts/test.sh` runs the suite, (again)") == (
        "how-scriptstestsh-runs-the-suite-again"
    )
