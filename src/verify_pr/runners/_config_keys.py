"""Config keys that weaken a run, found by name in a JS runner's config files (jest, vitest).

A JS config is never executed here, so a key is matched as a word: a computed key escapes
this, and the report-and-exit-code agreement still applies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from verify_pr.runners import _files


class TamperKeys:
    """A runner's config keys, each with what it does to the run."""

    def __init__(self, meanings: dict[str, str]) -> None:
        self._meanings = dict(meanings)
        self._pattern = re.compile(r"\b(" + "|".join(map(re.escape, meanings)) + r")\b")

    def signals(self, source: str, text: str) -> list[str]:
        """One signal per key ``text`` names, sorted: ``source: key what it does``."""
        keys = sorted(set(self._pattern.findall(text)))
        return [f"{source}: {key} {self._meanings[key]}" for key in keys]

    def scan(self, tree: Path, names: Iterable[str]) -> Iterator[tuple[str, list[str]]]:
        """Each of ``names`` present at the top of ``tree``, in order, with its signals: the
        keys it names, or that it could not be read as text (never an empty list then)."""
        for name in names:
            if _files.entry(tree, name) is _files.Entry.ABSENT:
                continue
            text = _files.read_text(tree, name)
            if text is None:
                yield name, [f"{name} could not be read as a plain text file: not inspected"]
            else:
                yield name, self.signals(name, text)
