#!/usr/bin/env python3
"""Run the hostile suite and write its table (attack, control, outcome) into the docs and README.

The table is generated from the suite's own results: a pytest plugin collects, per test id,
what the host said (``outcome`` properties recorded by tests/hostile/helpers.py), what the
positive control detected (``control`` properties) and pytest's verdict. Nothing is typed by
hand. ``--check`` only collects the suite and verifies that the table lists exactly its test
ids (no run, no timing), which tests/test_hostile_table.py does in the ordinary suite.

    .venv/bin/python scripts/hostile_table.py            # run, then rewrite the table
    .venv/bin/python scripts/hostile_table.py --check    # ids in sync? exit 1 if not
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "docs" / "hostile.md", ROOT / "README.md")
SUITE = "tests/hostile"
START, END = "<!-- hostile-table:start -->", "<!-- hostile-table:end -->"
ROW_ID = re.compile(r"^\| `([^`]+)` \|", re.M)


@dataclass
class Row:
    nodeid: str
    outcome: str = "not run"
    host: list[str] = field(default_factory=list)
    control: list[str] = field(default_factory=list)
    reason: str = ""


class Collector:
    """A pytest plugin: the ids collected and, when run, each test's result and records."""

    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            self.rows.setdefault(short(item.nodeid), Row(short(item.nodeid)))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        row = self.rows.setdefault(short(report.nodeid), Row(short(report.nodeid)))
        for key, value in report.user_properties:
            target = row.host if key == "outcome" else row.control if key == "control" else None
            if target is not None and str(value) not in target:
                target.append(str(value))
        if hasattr(report, "wasxfail"):
            row.outcome = "xfail (residual)" if report.skipped else "XPASS"
            row.reason = str(report.wasxfail)
        elif report.when == "call" or report.outcome != "passed":
            if row.outcome in ("not run", "passed"):
                row.outcome = report.outcome
            if report.skipped and isinstance(report.longrepr, tuple):
                row.reason = str(report.longrepr[2])


def short(nodeid: str) -> str:
    return nodeid.removeprefix(SUITE + "/")


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(rows: dict[str, Row]) -> str:
    lines = [
        START,
        "| Test id (the attack) | Positive control (detected with the control absent) "
        "| Host outcome | Result |",
        "|---|---|---|---|",
    ]
    for nodeid in sorted(rows):
        row = rows[nodeid]
        result = row.outcome + (f": {row.reason}" if row.reason else "")
        lines.append(
            f"| `{nodeid}` | {cell('; '.join(row.control) or '-')} "
            f"| {cell('; '.join(row.host) or '-')} | {cell(result)} |"
        )
    lines.append(END)
    return "\n".join(lines)


def write_table(table: str) -> None:
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        if START not in text or END not in text:
            raise SystemExit(f"{doc}: the table markers are missing")
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        doc.write_text(head + table + tail, encoding="utf-8")


def table_in(doc: Path) -> str:
    text = doc.read_text(encoding="utf-8")
    return text.split(START, 1)[1].split(END, 1)[0] if START in text else ""


def ids_in_doc() -> set[str]:
    """The ids of the table, which must be the same text in every document."""
    tables = {table_in(doc) for doc in DOCS}
    if len(tables) != 1:
        raise SystemExit("the hostile tables in docs/hostile.md and README.md differ: regenerate")
    return set(ROW_ID.findall(tables.pop()))


def collect() -> set[str]:
    collector = Collector()
    code = pytest.main([SUITE, "--collect-only", "-qq", "-p", "no:cacheprovider"], [collector])
    if code not in (0, 5):
        raise SystemExit(f"collection failed ({code})")
    return set(collector.rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the ids are in sync")
    args, extra = parser.parse_known_args(argv)
    if args.check:
        collected, listed = collect(), ids_in_doc()
        if collected == listed:
            print(f"hostile table in sync: {len(listed)} test ids")
            return 0
        for missing in sorted(collected - listed):
            print(f"not in the table: {missing}", file=sys.stderr)
        for stale in sorted(listed - collected):
            print(f"in the table but not in the suite: {stale}", file=sys.stderr)
        print("run: .venv/bin/python scripts/hostile_table.py", file=sys.stderr)
        return 1
    collector = Collector()
    code = pytest.main([SUITE, "-p", "no:cacheprovider", *extra], [collector])
    write_table(render(collector.rows))
    print(
        f"wrote {len(collector.rows)} rows to " + ", ".join(str(d.relative_to(ROOT)) for d in DOCS)
    )
    return int(code)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
