"""Export the JSON Schemas of the boundary models to ``schema/`` (a test keeps them in sync).

Run: ``python -m verify_pr.models.schemas [DIR]``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import BaseModel

from verify_pr.models.compare import CompareResult
from verify_pr.models.report import TestReport
from verify_pr.models.sandbox import SandboxResult
from verify_pr.models.verdict import VerdictFile

SCHEMAS: dict[str, type[BaseModel]] = {
    "result.schema.json": SandboxResult,
    "verdict.schema.json": VerdictFile,
    "report.schema.json": TestReport,
    "verify-pr-result.schema.json": CompareResult,
}


def render(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m verify_pr.models.schemas", description="Export the models' JSON Schemas."
    )
    parser.add_argument("dir", nargs="?", default="schema", help="where to write (schema/)")
    target = Path(parser.parse_args(argv).dir)
    target.mkdir(parents=True, exist_ok=True)
    for name, model in SCHEMAS.items():
        (target / name).write_text(render(model), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
