"""Rewrite every golden file of the renderers from the fixed models in ``cases.py``.

    python3 -I tests/golden/regen.py          # rewrite
    python3 -I tests/golden/regen.py --check  # exit 1 if any golden file would change

Review the diff before committing: a changed golden file is a changed message to a maintainer.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.golden.cases import GOLDEN, outputs  # noqa: E402


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        print("usage: regen.py [--check]", file=sys.stderr)
        return 2
    stale = []
    wanted = outputs()
    for name, render in wanted.items():
        path = GOLDEN / name
        text = render()
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(name)
        if not check:
            path.write_text(text, encoding="utf-8")
    extra = sorted(
        p.name for p in GOLDEN.iterdir() if p.suffix in (".md", ".txt") and p.name not in wanted
    )
    for name in extra:
        print(f"not rendered by any case (delete it): {name}", file=sys.stderr)
    for name in stale:
        print(f"{'stale' if check else 'rewrote'}: {name}", file=sys.stderr)
    return 1 if (check and stale) or extra else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
