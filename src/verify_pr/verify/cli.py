"""verify-pr: run a PR's tests in the sandbox and give a verdict from the report only.

Exit codes: 0 PASS, 1 FAIL, 4 NOT PROVEN, 3 BLOCKED, 2 usage or refused input.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, assert_never

from verify_pr.errors import InputRefused, SandboxBlocked, VerifyPrError
from verify_pr.models.verdict import Verdict, VerdictFile

EXIT_CODES = {Verdict.PASS: 0, Verdict.FAIL: 1, Verdict.BLOCKED: 3, Verdict.NOT_PROVEN: 4}
EXIT_USAGE = 2
VERDICT_FILE = "verdict.json"
RUNNERS = ("auto", "pytest", "jest", "vitest", "bun")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise InputRefused(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="verify-pr",
        description=__doc__,
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="mode", required=True)
    run = sub.add_parser("run", help="run the suite once and judge it", allow_abbrev=False)
    run.add_argument("--repo", required=True, help="the PR's tree (read-only in the sandbox)")
    run.add_argument("--image", required=True, help="local image holding the runner and deps")
    run.add_argument("--runner", default="auto", choices=RUNNERS)
    run.add_argument("--out", help="new or empty folder for the files (default: a temp dir)")
    run.add_argument("--command", help="own command; {report} becomes the report path")
    run.add_argument("--report-format", choices=("junit", "jest-json"))
    run.add_argument("--timeout", default="600", help="seconds, 1..3600")
    run.add_argument("--max-output", default="1048576", help="bytes, 1..1048576")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except SandboxBlocked as exc:
        print(f"verify-pr: blocked: {exc.diagnostics()}", file=sys.stderr)
        return EXIT_CODES[Verdict.BLOCKED]
    except VerifyPrError as exc:  # refused input, unusable config: nothing ran
        print(f"verify-pr: refused: {exc.diagnostics()}", file=sys.stderr)
        return EXIT_USAGE


def _main(argv: list[str]) -> int:
    from verify_pr.sandbox.cli import (
        MAX_OUTPUT_RANGE,
        TIMEOUT_RANGE,
        check_image,
        parse_number,
    )
    from verify_pr.sandbox.guard import OUT_FILES, check_out, check_repo, check_tree
    from verify_pr.verify.suite import plan_custom, plan_detected, run_suite

    ns = build_parser().parse_args(argv)
    repo = check_repo(ns.repo, os.environ.get("HOME"))
    out_arg = ns.out or tempfile.mkdtemp(prefix="verify-pr-")
    out = check_out(out_arg, repo, OUT_FILES | {VERDICT_FILE})
    image = check_image(ns.image)
    timeout_s = parse_number("--timeout", ns.timeout, 600, TIMEOUT_RANGE)
    max_output = parse_number("--max-output", ns.max_output, 1 << 20, MAX_OUTPUT_RANGE)
    if (ns.command is None) != (ns.report_format is None):
        raise InputRefused("--command and --report-format go together")
    if ns.command is not None and ns.runner != "auto":
        raise InputRefused("--runner and --command exclude each other")
    check_tree(repo)
    plan = (
        plan_custom(ns.command, ns.report_format) if ns.command else plan_detected(repo, ns.runner)
    )
    outcome = run_suite(repo, plan, image, timeout_s, max_output)
    write_all(out, outcome.verdict, outcome.run.output, outcome.run.report)
    print(summary(outcome.verdict, out))
    return EXIT_CODES[outcome.verdict.verdict]


def write_all(out: Path, verdict: VerdictFile, output: bytes, report: bytes | None) -> None:
    from verify_pr.sandbox.out_files import write_atomic, write_out

    (out / VERDICT_FILE).unlink(missing_ok=True)  # never a stale verdict beside new files
    write_out(out, verdict.sandbox, output, report)
    write_atomic(out, VERDICT_FILE, verdict.model_dump_json(indent=2).encode() + b"\n")


def summary(verdict: VerdictFile, out: Path) -> str:
    """A few lines for a human; every string from the PR is shown escaped."""
    match verdict.verdict:
        case Verdict.PASS:
            head = "PASS: the suite ran in the sandbox and its report shows no failure"
        case Verdict.FAIL:
            head = "FAIL: the report shows failing tests"
        case Verdict.NOT_PROVEN:
            head = "NOT PROVEN: the run does not support a verdict"
        case Verdict.BLOCKED:
            head = "BLOCKED: the sandbox could not run (this says nothing about the PR)"
        case _ as unreachable:
            assert_never(unreachable)
    version = _shown(verdict.runner_version or "")
    lines = [head, f"runner: {_shown(verdict.runner)} {version}".rstrip()]
    if verdict.totals:
        t = verdict.totals
        lines.append(
            f"tests: {t.total} total, {t.passed} passed, {t.failed} failed, {t.error} errors, "
            f"{t.skipped} skipped"
        )
    lines += [f"- {_shown(reason)}" for reason in verdict.reasons]
    lines.append(f"files: {out}")
    return "\n".join(lines)


def _shown(text: str) -> str:
    """One terminal line: controls and bidi escaped, and newlines too (no forged lines)."""
    from verify_pr.models.report import clean_text

    escaped = clean_text(text, len(text) * 6 + 1)
    return escaped.replace("\n", "\\n").replace("\t", "\\t")


if __name__ == "__main__":
    sys.exit(main())
