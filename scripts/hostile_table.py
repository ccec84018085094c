#!/usr/bin/env python3
"""Run the hostile suite: its table (attack, control, outcome) in docs/hostile.md, a line in README.

The table is generated from the suite's own results: a pytest plugin collects, per test id,
what the host said (``outcome`` properties recorded by tests/hostile/helpers.py), what the
positive control detected (``control`` properties) and pytest's verdict. Nothing is typed by
hand. The README carries one line summing the table up, computed from the table itself.
``--check`` only collects the suite and verifies that the table lists exactly its test ids and
that the README's line sums up that table (no run, no timing), which tests/test_hostile_table.py
does in the ordinary suite.

    .venv/bin/python scripts/hostile_table.py            # run, then rewrite table and line
    .venv/bin/python scripts/hostile_table.py --summary  # rewrite the README line from the table
    .venv/bin/python scripts/hostile_table.py --check    # in sync? exit 1 if not
    .venv/bin/python scripts/hostile_table.py --update tests/hostile/test_x.py  # run these
        # tests only: their rows replaced or added, every other row kept as the table has it
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TABLE_DOC = ROOT / "docs" / "hostile.md"
README = ROOT / "README.md"
SUITE = "tests/hostile"
START, END = "<!-- hostile-table:start -->", "<!-- hostile-table:end -->"
SUMMARY_START, SUMMARY_END = "<!-- hostile-summary:start -->", "<!-- hostile-summary:end -->"
ROW_ID = re.compile(r"^\| `([^`]+)` \|", re.M)
ROW_RESULT = re.compile(r"^\| `[^`]+` \|.*\| ([^|]*?) \|$", re.M)


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


def render(rows: dict[str, Row], kept: dict[str, str] | None = None) -> str:
    """The table of ``rows``, beside ``kept`` (id -> its line as the table has it)."""
    lines = [
        START,
        "| Test id (the attack) | Positive control (detected with the control absent) "
        "| Host outcome | Result |",
        "|---|---|---|---|",
    ]
    body = dict(kept or {})
    for nodeid, row in rows.items():
        result = row.outcome + (f": {row.reason}" if row.reason else "")
        body[nodeid] = (
            f"| `{nodeid}` | {cell('; '.join(row.control) or '-')} "
            f"| {cell('; '.join(row.host) or '-')} | {cell(result)} |"
        )
    lines += [body[nodeid] for nodeid in sorted(body)]
    lines.append(END)
    return "\n".join(lines)


def rows_in_doc() -> dict[str, str]:
    """Each row of the table as it stands, by its test id."""
    rows = {}
    for line in table_in(TABLE_DOC).splitlines():
        found = ROW_ID.match(line)
        if found is not None:
            rows[found.group(1)] = line
    return rows


def _replace_between(doc: Path, start: str, end: str, block: str) -> None:
    text = doc.read_text(encoding="utf-8")
    if start not in text or end not in text:
        raise SystemExit(f"{doc}: the markers {start} ... {end} are missing")
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(head + block + tail, encoding="utf-8")


def write_table(table: str) -> None:
    _replace_between(TABLE_DOC, START, END, table)


def table_in(doc: Path) -> str:
    text = doc.read_text(encoding="utf-8")
    return text.split(START, 1)[1].split(END, 1)[0] if START in text else ""


def ids_in_doc() -> set[str]:
    return set(ROW_ID.findall(table_in(TABLE_DOC)))


def summary(table: str) -> str:
    """The README's line, computed from the table's Result column."""
    results = [r.split(":", 1)[0].strip() for r in ROW_RESULT.findall(table)]
    held = results.count("passed")
    residual = results.count("xfail (residual)")
    other = len(results) - held - residual
    line = (
        f"{SUMMARY_START}\n**The hostile suite:** {len(results)} attacks on the sandbox, the "
        f"verifier and the actions, each run for real with a positive control that shows it "
        f"would be caught: {held} held, {residual} documented residuals (strict xfail)"
    )
    if other:
        line += f", {other} other (see the table)"
    return line + ". Full table: [docs/hostile.md](docs/hostile.md).\n" + SUMMARY_END


def write_summary() -> None:
    _replace_between(README, SUMMARY_START, SUMMARY_END, summary(table_in(TABLE_DOC)))


def summary_in_readme() -> str:
    text = README.read_text(encoding="utf-8")
    if SUMMARY_START not in text:
        return ""
    return SUMMARY_START + text.split(SUMMARY_START, 1)[1].split(SUMMARY_END, 1)[0] + SUMMARY_END


def collect() -> set[str]:
    collector = Collector()
    code = pytest.main([SUITE, "--collect-only", "-qq", "-p", "no:cacheprovider"], [collector])
    if code not in (0, 5):
        raise SystemExit(f"collection failed ({code})")
    return set(collector.rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the ids are in sync")
    parser.add_argument("--summary", action="store_true", help="rewrite the README line only")
    parser.add_argument(
        "--update", action="store_true", help="run only the given tests and update their rows"
    )
    args, extra = parser.parse_known_args(argv)
    if args.summary:
        write_summary()
        return 0
    if args.check:
        collected, listed = collect(), ids_in_doc()
        if summary_in_readme() != summary(table_in(TABLE_DOC)):
            print("README's hostile line does not sum up docs/hostile.md", file=sys.stderr)
            print("run: .venv/bin/python scripts/hostile_table.py --summary", file=sys.stderr)
            return 1
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
    if args.update:
        if not extra:
            raise SystemExit("--update needs the tests to run (paths or ids under tests/hostile)")
        code = pytest.main(["-p", "no:cacheprovider", *extra], [collector])
        suite = collect()
        kept = {i: line for i, line in rows_in_doc().items() if i in suite}
        write_table(render({i: r for i, r in collector.rows.items() if i in suite}, kept))
        write_summary()
        print(f"updated {len(collector.rows)} rows of docs/hostile.md and the README's line")
        return int(code)
    code = pytest.main([SUITE, "-p", "no:cacheprovider", *extra], [collector])
    write_table(render(collector.rows))
    write_summary()
    print(f"wrote {len(collector.rows)} rows to docs/hostile.md and the README's line")
    return int(code)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
