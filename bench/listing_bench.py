"""The publish job's intake of a comparison, today's result file at its cap against the compact
listing at real scale, side by side in one run (issue 36).

    python bench/listing_bench.py [--repeat 3] [--big 250000]

Rows, each measured in this process (time: the median of --repeat passes without tracing;
peak: tracemalloc's peak over one more pass, Python allocations only):
- intake, 9,999 per side: ``publish.intake.validate_artifact`` over the artifact of a
  VERIFIED comparison whose runs each list 9,999 testcases (the most a result file carried
  whole before the listing: a run at ``VERDICT_MAX_TESTCASES`` now comes with its listing)
  and every transition, as the publish job reads it: every file's model, the cross-checks and
  the re-derivation;
- intake, --big per side: the same over the artifact of a comparison whose runs each hold
  --big results, their verdict files 10,000 of them, with each run's listing;
- decode and pair, --big per side: only ``listing.decode`` of both listings and the pairing
  (``classify_plain``), the part of the intake that grows with the suite.
The last lines print the ratios of the big intake to today's. Ids are synthetic, ~75
characters, as a large pytest suite's are. Not a test and no assertion: the numbers go to
docs/benchmarks.md with the machine they were measured on.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections.abc import Callable

from verify_pr.contract import COMPARE_RESULT_FILE, RESULT_FILE, VERDICT_FILE
from verify_pr.models.compare import (
    ChangedCode,
    CompareResult,
    CompareVerdict,
    Proof,
    side_file,
)
from verify_pr.models.listing import LISTING_FILES, decode, encode
from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.transitions import classify_plain, models, tally
from verify_pr.models.verdict import VERDICT_MAX_TESTCASES, Verdict, VerdictFile
from verify_pr.policy.whole import DROPPED
from verify_pr.publish.intake import CompareArtifact, Refused, validate_artifact

HEAD = "b" * 40


def _ids(n: int) -> list[str]:
    return [
        f"tests/test_module_{i // 500}.py::TestClass::test_case_{i}[param-{i % 7}]"
        for i in range(n)
    ]


def _case(i: int, status: TestStatus) -> TestCase:
    return TestCase.build(
        name=f"test_case_{i}[param-{i % 7}]",
        classname="TestClass",
        file=f"tests/test_module_{i // 500}.py",
        line=i % 400 + 1,
        status=status,
        duration_s=0.001,
    )


def _verdict(cases: list[TestCase], totals: Totals) -> VerdictFile:
    failing = any(c.status is TestStatus.FAILED for c in cases)
    sandbox = SandboxResult(
        status=RunStatus.COMPLETED,
        exit_code=1 if failing else 0,
        output_truncated=False,
        detail="",
        image="img",
        timeout_s=600,
        report=ReportStatus.RETURNED,
    )
    return VerdictFile(
        verdict=Verdict.FAIL if failing else Verdict.PASS,
        reasons=("r",),
        runner="pytest",
        runner_version=None,
        command="python3 -m pytest",
        totals=totals,
        testcases=tuple(cases),
        sandbox=sandbox,
    )


def artifact(n: int) -> dict[str, bytes]:
    """The files of a VERIFIED comparison whose runs each hold ``n`` results (case 0 fails on
    base only): with each run's listing when ``n`` is over the verdict file's cap."""
    wide = n >= VERDICT_MAX_TESTCASES
    sides: list[tuple[VerdictFile, dict[str, TestStatus]]] = []
    for failing in (True, False):
        statuses = {
            i: TestStatus.FAILED if failing and n_ == 0 else TestStatus.PASSED
            for n_, i in enumerate(_ids(n))
        }
        every = Totals(total=n, passed=n - failing, failed=int(failing), error=0, skipped=0)
        listed = [
            _case(i, TestStatus.FAILED if failing and i == 0 else TestStatus.PASSED)
            for i in range(min(n, VERDICT_MAX_TESTCASES))
        ]
        sides.append((_verdict(listed, every), statuses))
    (before, was), (head, now) = sides
    rows = classify_plain(was, now)
    result = CompareResult(
        verdict=CompareVerdict.VERIFIED,
        reasons=("r",),
        base_sha="a" * 40,
        head_sha=HEAD,
        strict_harness=False,
        harness_files_changed=(),
        counts=tally(rows),
        transitions=tuple(models(rows, DROPPED if wide else frozenset())),
        base=before,
        head=head,
        code_paths=("x.py",),
        proofs=(
            Proof(
                id=_ids(1)[0],
                file=None,
                line=None,
                message=None,
                reruns=1,
                changed_code=ChangedCode.RAN,
                changed_code_lines=("head x.py:1",),
            ),
        ),
    )
    files = {COMPARE_RESULT_FILE: result.model_dump_json(by_alias=True).encode()}
    for side, run in (("base", before), ("head", head)):
        files[side_file(side, RESULT_FILE)] = run.sandbox.model_dump_json().encode()
        files[side_file(side, VERDICT_FILE)] = run.model_dump_json().encode()
    if wide:
        files[LISTING_FILES["base"]] = encode(was)
        files[LISTING_FILES["head"]] = encode(now)
    return files


def _intake(files: dict[str, bytes]) -> int:
    intake = validate_artifact(files, HEAD)
    if isinstance(intake, Refused):
        raise SystemExit(f"the intake refused the artifact: {intake.reason}")
    assert isinstance(intake.artifact, CompareArtifact)
    return sum(intake.artifact.compare.counts.model_dump().values())


def _decode_and_pair(files: dict[str, bytes]) -> int:
    before, head = (decode(files[LISTING_FILES[k]]) for k in ("base", "head"))
    return len(classify_plain(before, head))


def _measure(work: Callable[[], int], repeat: int) -> tuple[float, float, int]:
    """(median seconds, peak MiB, results paired)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        paired = work()
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    work()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return statistics.median(times), peak / 2**20, paired


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big", type=int, default=250_000)
    args = parser.parse_args()
    today = VERDICT_MAX_TESTCASES - 1  # the most a result file carried whole, no listing
    small, big = artifact(today), artifact(args.big)
    rows = [
        (f"intake, {today:,} per side", small, _intake),
        (f"intake, {args.big:,} per side", big, _intake),
        (f"decode and pair, {args.big:,} per side", big, _decode_and_pair),
    ]
    print(f"{'publish job':<34} {'bytes':>12} {'paired':>9} {'time s':>8} {'peak MiB':>9}")
    measured = []
    for name, files, work in rows:
        seconds, peak, paired = _measure(lambda f=files, w=work: w(f), args.repeat)  # type: ignore[misc]
        measured.append((seconds, peak))
        size = sum(len(v) for v in files.values())
        print(f"{name:<34} {size:>12,} {paired:>9,} {seconds:>8.2f} {peak:>9.1f}")
    (t_small, p_small), (t_big, p_big) = measured[:2]
    scale = args.big / today
    print(
        f"ratio, {args.big:,} to {today:,} per side ({scale:.0f}x the results): "
        f"time {t_big / t_small:.2f}x, peak {p_big / p_small:.2f}x"
    )


if __name__ == "__main__":
    main()
