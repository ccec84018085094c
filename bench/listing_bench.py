"""The publish job's intake of a comparison, today's result file at its cap against the compact
listing at real scale, side by side in one run (issue 36).

    python bench/listing_bench.py [--repeat 3] [--big 250000]

Rows, each measured in this process (time: the median of --repeat passes without tracing;
peak: tracemalloc's peak over one more pass, Python allocations only):
- result file, 10,000 per side: ``bounded_json.load_model(CompareResult, ...)`` of a result
  whose base and head runs each list 10,000 testcases (today's ``VERDICT_MAX_TESTCASES``), as
  the intake reads it, then every id paired and counted by transition (``classify_one``);
- listing, --big per side: ``listing.decode`` of both sides' listings, then the same count.
(``classify`` builds a pydantic model per id, ~25 us each: at 250,000 that is seconds, so a
re-derivation at that scale counts with ``classify_one``.)
Ids are synthetic, ~75 characters, as a large pytest suite's are. Not a test and no
assertion: the numbers go to docs/benchmarks.md with the machine they were measured on.
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable

from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.models.listing import decode, encode
from verify_pr.models.report import TestCase, TestStatus, Totals
from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult
from verify_pr.models.transitions import classify, classify_one, count
from verify_pr.models.verdict import VERDICT_MAX_TESTCASES, Verdict, VerdictFile
from verify_pr.publish.bounded_json import load_model


def _ids(n: int) -> list[str]:
    return [
        f"tests/test_module_{i // 500}.py::TestClass::test_case_{i}[param-{i % 7}]"
        for i in range(n)
    ]


def _verdict(cases: list[TestCase]) -> VerdictFile:
    sandbox = SandboxResult(
        status=RunStatus.COMPLETED,
        exit_code=1,
        output_truncated=False,
        detail="",
        image="img",
        timeout_s=600,
        report=ReportStatus.RETURNED,
    )
    return VerdictFile(
        verdict=Verdict.FAIL,
        reasons=("r",),
        runner="pytest",
        runner_version=None,
        command="python3 -m pytest",
        totals=Totals.count(cases),
        testcases=tuple(cases),
        sandbox=sandbox,
    )


def result_file(n: int) -> bytes:
    """A comparison whose runs each list ``n`` testcases (one fails on base only)."""
    sides = []
    for failing in (True, False):
        cases = [
            TestCase.build(
                name=f"test_case_{i}[param-{i % 7}]",
                classname=f"tests.test_module_{i // 500}.TestClass",
                file=f"tests/test_module_{i // 500}.py",
                line=i % 400 + 1,
                status=TestStatus.FAILED if failing and i == 0 else TestStatus.PASSED,
                duration_s=0.001,
            )
            for i in range(n)
        ]
        sides.append(_verdict(cases))
    before, head = sides
    transitions = classify(
        {c.id: c.status for c in before.testcases}, {c.id: c.status for c in head.testcases}
    )
    result = CompareResult(
        verdict=CompareVerdict.VERIFIED,
        reasons=("r",),
        base_sha="a" * 40,
        head_sha="b" * 40,
        strict_harness=False,
        harness_files_changed=(),
        counts=count(transitions),
        transitions=tuple(transitions),
        base=before,
        head=head,
    )
    return result.model_dump_json(by_alias=True).encode()


def _tally(before: dict[str, TestStatus], head: dict[str, TestStatus]) -> int:
    """Every id paired and counted by transition (``classify_one``, no model per id)."""
    kinds = Counter(classify_one(before.get(i), head.get(i)) for i in before.keys() | head)
    return sum(kinds.values())


def _read_result(data: bytes) -> int:
    result = load_model(CompareResult, data)
    before = {c.id: c.status for c in result.before.testcases}
    return _tally(before, {c.id: c.status for c in result.head.testcases})


def _read_listings(before: bytes, head: bytes) -> int:
    return _tally(decode(before), decode(head))


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
    small = result_file(VERDICT_MAX_TESTCASES)
    ids = _ids(args.big)
    before = encode(
        {i: TestStatus.FAILED if n == 0 else TestStatus.PASSED for n, i in enumerate(ids)}
    )
    head = encode(dict.fromkeys(ids, TestStatus.PASSED))
    rows = [
        (
            f"result file, {VERDICT_MAX_TESTCASES:,} per side",
            len(small),
            _measure(lambda: _read_result(small), args.repeat),
        ),
        (
            f"listing, {args.big:,} per side",
            len(before) + len(head),
            _measure(lambda: _read_listings(before, head), args.repeat),
        ),
    ]
    print(f"{'intake':<34} {'bytes':>12} {'paired':>9} {'time s':>8} {'peak MiB':>9}")
    for name, size, (seconds, peak, paired) in rows:
        print(f"{name:<34} {size:>12,} {paired:>9,} {seconds:>8.2f} {peak:>9.1f}")


if __name__ == "__main__":
    main()
