"""verify-pr: run a PR's tests in the sandbox and give a verdict from the report only.

run:     exit codes 0 PASS, 1 FAIL, 4 NOT PROVEN, 3 BLOCKED, 2 usage or refused input.
compare: exit codes 0 VERIFIED or NOTHING TO PROVE (the result file says which), 4 NOT PROVEN,
         3 BLOCKED, 2 usage or refused input.
Both: 5 crashed (a bug of verify-pr, never a verdict; ``verify_pr.exit_codes``), 7 cancelled
(SIGINT or SIGTERM: the run's sandboxes and temporary files are removed, no verdict).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from verify_pr import options
from verify_pr.contract import (
    AUTO,
    COMPARE_RESULT_FILE,
    COMPARE_SUMMARY_FILE,
    CUSTOM_FORMAT_CHOICES,
    DEFAULT_FLAKE_RUNS,
    DEFAULT_TIMEOUT_S,
    MAX_FLAKE_RUNS,
    MAX_TIMEOUT_S,
    RUN_OUT_FILES,
    RUNNER_CHOICES,
    VERDICT_FILE,
)
from verify_pr.errors import InputRefused, VerifyPrError
from verify_pr.exit_codes import (
    VERIFY_CODES,
    RunExit,
    compare_exit_codes,
    run_entry,
    run_exit_codes,
)
from verify_pr.models.listing import LISTING_FILES
from verify_pr.models.verdict import VerdictFile
from verify_pr.options import Parser
from verify_pr.render.terminal import compare_text, run_summary, shown, uncommitted_warning
from verify_pr.sandbox import cancel
from verify_pr.verify.settings import CompareSettings, Limits, SuiteSettings

if TYPE_CHECKING:
    from verify_pr.sandbox.spool import ReportSpool

EXIT_CODES = run_exit_codes()
COMPARE_EXIT_CODES = compare_exit_codes()
EXIT_USAGE = RunExit.REFUSED  # compare's too: one number means one thing everywhere
EXIT_CRASHED = RunExit.CRASHED
COMPARE_OUT = frozenset(
    {COMPARE_RESULT_FILE, COMPARE_SUMMARY_FILE, "base", "head", "base-own", *LISTING_FILES.values()}
)
COMPARE_SIDE_DIRS = ("base", "head", "base-own")
MAX_EVENT_BYTES = 25 << 20


def _shared_flags() -> Parser:
    """The flags run and compare share, declared once (each sub-parser takes them as a parent)."""
    p = Parser(add_help=False, allow_abbrev=False)
    p.add_argument("--image", required=True, help="local image holding the runner and deps")
    p.add_argument(
        "--runner",
        default=AUTO,
        type=options.runner,  # refused in the options' words, before argparse's choices
        choices=RUNNER_CHOICES,
    )
    p.add_argument("--out", help="new or empty folder for the files (default: a temp dir)")
    p.add_argument("--command", help="own command for every run; {report} is the report path")
    p.add_argument(
        "--report-format",
        type=options.report_format,
        choices=CUSTOM_FORMAT_CHOICES,
    )
    p.add_argument(
        "--timeout", default=str(DEFAULT_TIMEOUT_S), help=f"seconds per run, 1..{MAX_TIMEOUT_S}"
    )
    p.add_argument("--max-output", default="1048576", help="bytes, 1..1048576")
    p.add_argument("--cpus", default="1", help="CPUs for each sandbox, 0.25..64")
    p.add_argument("--memory", default="512m", help="memory for each sandbox, 512m..64g")
    return p


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="verify-pr",
        description=__doc__,
        allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    shared = [_shared_flags()]
    sub = p.add_subparsers(dest="mode", required=True)
    run = sub.add_parser(
        "run", help="run the suite once and judge it", allow_abbrev=False, parents=shared
    )
    run.add_argument("--repo", required=True, help="the PR's tree (read-only in the sandbox)")
    run.add_argument(
        "--diff-base",
        help="measure which lines the work tree's HEAD changes against this commit (a branch, "
        "a tag, a short or full id) the run ran (information, never part of the verdict)",
    )
    cmp = sub.add_parser(
        "compare",
        help="run the suite on base and on head and compare",
        allow_abbrev=False,
        parents=shared,
    )
    cmp.add_argument("--git", required=True, help="local git repository holding both commits")
    cmp.add_argument("--base", help="base commit: a branch, a tag, a short or full commit id")
    cmp.add_argument("--head", help="head commit: a branch, a tag, a short or full commit id")
    cmp.add_argument("--event", help="GitHub pull_request event file (base and head from it)")
    cmp.add_argument(
        "--strict-harness",
        action="store_true",
        help="run head's tests with base's versions of the harness files the PR changes",
    )
    cmp.add_argument(
        "--flake-runs",
        default=str(DEFAULT_FLAKE_RUNS),
        help="re-run the FAIL_TO_PASS tests by id (without the rest of the suite) this many "
        "times per side, "
        f"0..{MAX_FLAKE_RUNS} (default {DEFAULT_FLAKE_RUNS})",
    )
    return p


def shared_args(ns: argparse.Namespace) -> SuiteSettings:
    """The shared flags' checks (``verify_pr.options``, the action's too): the command and
    its format go together and exclude --runner, a bad command is refused before any run,
    numbers are in range."""
    from verify_pr.sandbox.resources import parse_resources
    from verify_pr.verify.runs.suite import plan_custom

    options.check_suite(ns.runner, ns.command, ns.report_format)
    image = options.check_image(ns.image)
    limits = Limits(
        options.timeout(ns.timeout),
        options.max_output(ns.max_output),
        parse_resources(ns.cpus, ns.memory),
    )
    if ns.command is not None:
        plan_custom(ns.command, ns.report_format)
    return SuiteSettings(image, ns.runner, ns.command, ns.report_format, limits)


def main(argv: Sequence[str] | None = None) -> int:
    """Run or compare; each error by the category its class declares (``exit_codes.run_entry``);
    SIGINT and SIGTERM cancel it (``sandbox/cancel.py``): exit 7."""
    args = list(sys.argv[1:] if argv is None else argv)
    with cancel.on_signals():
        return run_entry("verify-pr", lambda: _main(args), VERIFY_CODES)


def _main(argv: list[str]) -> int:
    from verify_pr.sandbox.guard import check_out, check_repo, check_tree
    from verify_pr.verify.coverage.run import check_diff_base, start_run
    from verify_pr.verify.runs.suite import plan_custom, plan_detected, run_suite

    ns = build_parser().parse_args(argv)
    if ns.mode == "compare":
        return _compare(ns)
    repo = check_repo(ns.repo, os.environ.get("HOME"))
    out_arg = ns.out or _own_out("verify-pr-")
    out = check_out(out_arg, repo, RUN_OUT_FILES)
    flags = shared_args(ns)
    if ns.diff_base is not None:
        check_diff_base(repo, ns.diff_base)
    check_tree(repo)
    plan = (
        plan_custom(flags.command, flags.report_format)
        if flags.command and flags.report_format
        else plan_detected(repo, flags.runner)
    )
    # patch coverage (docs/coverage.md): information only, added after the verdict is decided
    coverage = start_run(repo, ns.diff_base, plan.runner) if ns.diff_base is not None else None
    if coverage is not None:
        plan = coverage.plan(plan)
    limits = flags.limits
    outcome = run_suite(
        repo, plan, flags.image, limits.timeout_s, limits.max_output, limits.resources
    )
    verdict = outcome.verdict
    if coverage is not None:
        verdict = verdict.model_copy(update={"patch_coverage": coverage.result(outcome)})
    write_all(out, verdict, outcome.run.output, outcome.run.report)
    print(run_summary(verdict, out, terminal=sys.stdout.isatty()))
    return EXIT_CODES[verdict.verdict]


def _own_out(prefix: str) -> str:
    """The default --out: a new temporary folder, removed if the run is cancelled."""
    out = tempfile.mkdtemp(prefix=prefix)
    cancel.discard(Path(out))
    return out


def read_event(path: str) -> tuple[str, str]:
    """pull_request.base.sha and pull_request.head.sha from a GitHub event file."""
    import json

    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_EVENT_BYTES + 1)
    except OSError as exc:
        raise InputRefused(f"--event {path!r} cannot be read: {exc.strerror}") from None
    if len(data) > MAX_EVENT_BYTES:
        raise InputRefused("--event file is too large")
    try:
        event = json.loads(data)
        pr = event["pull_request"]
        base, head = pr["base"]["sha"], pr["head"]["sha"]
    except (ValueError, KeyError, TypeError):
        raise InputRefused(
            "--event is not a pull_request event with pull_request.base.sha and .head.sha"
        ) from None
    if not isinstance(base, str) or not isinstance(head, str):
        raise InputRefused("--event: base.sha and head.sha must be strings")
    return base, head


def _compare(ns: argparse.Namespace) -> int:
    from verify_pr.sandbox.guard import check_out
    from verify_pr.verify.compare_run import CompareRequest, run_compare
    from verify_pr.verify.decision.summary_lists import listed, summary_markdown

    if ns.event is not None and (ns.base is not None or ns.head is not None):
        raise InputRefused("--event excludes --base and --head")
    if ns.event is None and (ns.base is None or ns.head is None):
        raise InputRefused("give --base and --head, or --event")
    git_dir = Path(ns.git)
    if not git_dir.is_dir():
        raise InputRefused(f"--git {ns.git!r} is not a directory")
    out_arg = ns.out or _own_out("verify-pr-compare-")
    out = check_out(out_arg, git_dir.resolve(), COMPARE_OUT)
    # the compare's settings, read from the flags here once and passed down whole
    settings = CompareSettings(
        shared_args(ns), ns.strict_harness, options.flake_runs(ns.flake_runs)
    )
    for side in COMPARE_SIDE_DIRS:
        if (out / side).is_symlink() or ((out / side).exists() and not (out / side).is_dir()):
            raise InputRefused(f"--out {side} is not a plain directory")
    base, head = commits(git_dir, ns.event, ns.base, ns.head)
    if base == head:
        raise InputRefused("--base and --head are the same commit: nothing to compare")
    request = CompareRequest(git_dir=git_dir, base_sha=base, head_sha=head)
    from verify_pr.sandbox.out_files import write_atomic

    (out / COMPARE_RESULT_FILE).unlink(missing_ok=True)
    (out / COMPARE_SUMMARY_FILE).unlink(missing_ok=True)
    for name in LISTING_FILES.values():
        (out / name).unlink(missing_ok=True)  # a listing is written only for a wide run
    run = run_compare(request, settings)
    import shutil

    if (out / "base-own").is_dir() and not (out / "base-own").is_symlink():
        shutil.rmtree(out / "base-own")  # never a stale run beside new files
    # base/verdict.json (the wire name) is the before run as compared (load failures expanded)
    sides = [("base", run.before, run.result.before), ("head", run.head, run.result.head)]
    if run.base_own is not None:
        # as compared too (a run whose only failures predate the PR embeds as FAIL)
        sides.append(("base-own", run.base_own, run.result.base_own or run.base_own.verdict))
    for side, outcome, verdict in sides:
        write_all(out / side, verdict, outcome.run.output, outcome.run.report)
    for name, data in (run.listings or {}).items():
        write_atomic(out, name, data)
    body = run.result.model_dump_json(indent=2).encode() + b"\n"
    write_atomic(out, COMPARE_RESULT_FILE, body)
    markdown = summary_markdown(run.result, run.findings)
    write_atomic(out, COMPARE_SUMMARY_FILE, markdown.encode())
    # plain text, as `run` prints: the Markdown is compare_summary.md's (the action reads it)
    print(compare_text(run.result, listed(run.result, run.findings), out))
    return COMPARE_EXIT_CODES[run.result.verdict]


def commits(git_dir: Path, event: str | None, base: str, head: str) -> tuple[str, str]:
    """Full commit ids: the event's as given; --base and --head resolved by the hardened git
    (a branch, a tag, a short id), each printed on stderr with its full id, and a word on
    stderr when the work tree holds changes that compare will not see."""
    from verify_pr.git.hardened import COMMIT_RE, HardenedGit, check_commit
    from verify_pr.git.source import locate, object_format

    if event is not None:
        base, head = read_event(event)
        return check_commit(base, "--base"), check_commit(head, "--head")
    given = {"--base": base, "--head": head}
    if all(COMMIT_RE.fullmatch(ref) for ref in given.values()):
        fmt = "sha256" if len(base) == 64 else "sha1"  # as given: run_compare checks them
    else:
        fmt = object_format(locate(git_dir))
        with HardenedGit(git_dir, object_format=fmt) as git:
            for what, ref in given.items():
                if not COMMIT_RE.fullmatch(ref):
                    given[what] = git.resolve(ref, what)
                    print(f"{what[2:]}: {shown(ref)} = {given[what]}", file=sys.stderr)
    warning = _uncommitted(git_dir, fmt)
    if warning:
        print(f"verify-pr: warning: {warning}", file=sys.stderr)
    return check_commit(given["--base"], "--base"), check_commit(given["--head"], "--head")


def _uncommitted(git_dir: Path, object_format: str) -> str | None:
    """A word when the work tree has changes; a status that cannot be read is said, not
    fatal (compare reads commits, which is checked on its own)."""
    from verify_pr.git.hardened import HardenedGit

    try:
        with HardenedGit(git_dir, object_format=object_format) as git:
            return uncommitted_warning(git.uncommitted() or [])
    except VerifyPrError as exc:
        return f"the --git work tree's status could not be read: {exc.diagnostics()}"


def write_all(out: Path, verdict: VerdictFile, output: bytes, report: ReportSpool | None) -> None:
    from verify_pr.sandbox.out_files import write_atomic, write_out

    (out / VERDICT_FILE).unlink(missing_ok=True)  # never a stale verdict beside new files
    write_out(out, verdict.sandbox, output, report)
    write_atomic(out, VERDICT_FILE, verdict.model_dump_json(indent=2).encode() + b"\n")


if __name__ == "__main__":
    sys.exit(main())
