"""Benchmarks of the sandbox runner, each a median ratio over alternating pairs in one run.

    python bench/sandbox_bench.py [--pairs 12] [--only N,...]

Not a test: the figures go in docs/benchmarks.md's table with the machine they ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a script, bench/ is path[0]
from tests.images.buildlib.dockerio import locked_run_argv

ROOT = Path(__file__).resolve().parents[1]
RUNNER = [sys.executable, "-m", "verify_pr.sandbox.cli"]
MINIMAL = "verify-pr-minimal:local"
PYTHON = "verify-pr-python:local"
SDIST = "six==1.17.0"  # a published package whose sdist carries its own pytest suite
TMPFS_WORK = "/work:rw,exec,nosuid,nodev,size=256m,nr_inodes=262144,uid=65534,gid=65534"


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def peak_rss_kib(cmd: list[str]) -> int:
    """Peak RSS of one fresh child process tree (measured by a fresh parent)."""
    probe = (
        "import resource,subprocess,sys;"
        "subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True)
    return int(out.stdout.strip())


def runner(repo: Path, image: str, cmd: str, *extra: str) -> list[str]:
    out = Path(tempfile.mkdtemp(prefix="vpr-bench-out-"))
    return [*RUNNER, "--repo", str(repo), "--out", str(out), "--image", image, "--cmd", cmd, *extra]


def bare(repo: Path, image: str, script: str) -> list[str]:
    """``script`` in ``image`` by a bare locked ``docker run``, ``repo`` at /repo, in /work."""
    return locked_run_argv(
        image,
        "sh",
        "-c",
        script,
        # /tmp as the sandbox has: jest and vitest need one
        tmpfs=(TMPFS_WORK, "/tmp:rw,nosuid,nodev,size=64m"),
        options=("-v", f"{repo}:/repo:ro", "-w", "/work"),
    )


def pairs(n: int, a: Callable[[], float], b: Callable[[], float]) -> tuple[float, float, float]:
    xs, ys = [], []
    a(), b()  # warm caches once, unmeasured
    for i in range(n):
        if i % 2:
            ys.append(b())
            xs.append(a())
        else:
            xs.append(a())
            ys.append(b())
    ratios = [x / y for x, y in zip(xs, ys, strict=True)]
    return statistics.median(xs), statistics.median(ys), statistics.median(ratios)


def make_repo(root: Path, files: int) -> Path:
    repo = root / f"repo{files}"
    for i in range(files):
        d = repo / f"d{i // 500}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"f{i}.txt").write_text(f"file {i}\n")
    os.system(f"chmod -R a+rX {root}")  # noqa: S605 (bench fixture, our own temp path)
    return repo


def sdist_repo(root: Path) -> Path:
    dl = root / "dl"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            "-d",
            str(dl),
            SDIST,
        ],
        check=True,
    )
    archive = next(dl.iterdir())
    subprocess.run(["tar", "-xzf", str(archive), "-C", str(root)], check=True)
    repo = next(p for p in root.iterdir() if p.is_dir() and p.name.startswith("six-"))
    os.system(f"chmod -R a+rX {root}")  # noqa: S605
    return repo


class FileReport:
    """A report on disk, as the sandbox's spool hands it to the parsers."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.size = path.stat().st_size

    def open(self) -> BinaryIO:
        return self.path.open("rb")


def junit_report(path: Path, cases: int) -> Path:
    with path.open("w", encoding="utf-8") as out:
        out.write(f'<testsuites name="pytest tests"><testsuite name="pytest" tests="{cases}">')
        for i in range(cases):
            out.write(
                f'<testcase classname="tests.test_mod{i % 500}.TestGroup{i % 37}" '
                f'name="test_case_{i}[param-{i % 7}]" file="tests/test_mod{i % 500}.py" '
                f'line="{i % 900}" time="0.001"/>\n'
            )
        out.write("</testsuite></testsuites>\n")
    return path


def jest_report(path: Path, cases: int, per_suite: int = 500) -> Path:
    with path.open("w", encoding="utf-8") as out:
        out.write(f'{{"success": true, "numTotalTests": {cases}, "numFailedTests": 0, ')
        out.write('"numFailedTestSuites": 0, "numRuntimeErrorTestSuites": 0, ')
        out.write('"wasInterrupted": false, "testResults": [')
        for s in range(cases // per_suite):
            results = ",".join(
                json.dumps(
                    {
                        "ancestorTitles": [f"group {i % 37}"],
                        "title": f"case {s * per_suite + i}",
                        "status": "passed",
                        "duration": 1,
                        "failureMessages": [],
                        "location": {"line": i + 1, "column": 3},
                    }
                )
                for i in range(per_suite)
            )
            sep = "," if s else ""
            out.write(f'{sep}{{"name": "/work/src/m{s}.test.js", "status": "passed", ')
            out.write(f'"message": "", "assertionResults": [{results}]}}')
        out.write("]}\n")
    return path


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def expat_pass(path: Path) -> None:
    import xml.parsers.expat

    parser = xml.parsers.expat.ParserCreate()
    with path.open("rb") as src:
        parser.ParseFile(src)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--only", default="1,2,3,4,5,6,7,8")
    args = parser.parse_args()
    only = {int(x) for x in args.only.split(",")}
    n = args.pairs
    root = Path(tempfile.mkdtemp(prefix="vpr-bench-"))
    os.chmod(root, 0o755)  # noqa: S103 (the sandbox user must read the bench repos)
    small = make_repo(root, 1)
    rows: list[tuple[str, str, str, str, str]] = []
    print(
        f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cores, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    )
    if 1 in only:
        a, b, r = pairs(
            n,
            lambda: wall(runner(small, MINIMAL, "true")),
            lambda: wall(["docker", "run", "--rm", "--network", "none", MINIMAL, "true"]),
        )
        rows.append(
            (
                "1 runner `--cmd true` vs `docker run --rm`",
                f"{a:.3f} s",
                f"{b:.3f} s",
                f"{r:.2f}",
                "<= 1.6",
            )
        )
    if 2 in only:
        repo = sdist_repo(root)
        test = "python3 -m pytest -q -p no:cacheprovider test_six.py"
        a, b, r = pairs(
            n,
            lambda: wall(runner(repo, PYTHON, test, "--timeout", "300")),
            lambda: wall(bare(repo, PYTHON, f"cp -R /repo/. /work/ && {test}")),
        )
        rows.append(
            (
                f"2 `{SDIST}` pytest suite: runner vs bare docker run",
                f"{a:.3f} s",
                f"{b:.3f} s",
                f"{r:.2f}",
                "<= 1.05",
            )
        )
    if 3 in only:
        flood = "head -c 1073741824 /dev/zero"
        big = lambda: float(peak_rss_kib(runner(small, MINIMAL, flood, "--max-output", "1048576")))  # noqa: E731
        idle = lambda: float(peak_rss_kib(runner(small, MINIMAL, "true")))  # noqa: E731
        a, b, _ = pairs(n, big, idle)
        rows.append(
            (
                "3 host peak RSS: 1 GiB printed (1 MiB cap) vs `true`",
                f"{a / 1024:.1f} MiB",
                f"{b / 1024:.1f} MiB",
                f"+{(a - b) / 1024:.1f} MiB",
                "within 16 MiB",
            )
        )
    if 4 in only:
        escape = (
            "setsid sh -c 'trap \"\" TERM; while :; do sleep 1; done' & "
            "trap '' TERM; while :; do sleep 1; done"
        )
        t = 2
        late = [wall(runner(small, MINIMAL, escape, "--timeout", str(t))) - t for _ in range(n)]
        base = [wall(runner(small, MINIMAL, "true")) for _ in range(n)]
        med = statistics.median(late) - statistics.median(base)
        rows.append(
            (
                "4 deadline to TIMEOUT result (setsid child ignoring TERM)",
                f"{statistics.median(late):.2f} s",
                f"{statistics.median(base):.2f} s",
                f"{med:.2f} s",
                "<= 2 s",
            )
        )
    if 5 in only:
        many = make_repo(root, 20000)
        a, b, r = pairs(
            n,
            lambda: wall(runner(many, MINIMAL, "true")),
            lambda: wall(bare(many, MINIMAL, "cp -R /repo/. /work/")),
        )
        rows.append(
            (
                "5 copy a 20,000-file repo into /work: runner vs bare",
                f"{a:.3f} s",
                f"{b:.3f} s",
                f"{r:.2f}",
                "<= 1.2",
            )
        )
    if 6 in only:
        from verify_pr.reports.junit import JunitDialect, parse_junit

        xml_path = junit_report(root / "big.xml", 250_000)
        src = FileReport(xml_path)
        a, b, r = pairs(
            min(n, 3),
            lambda: timed(lambda: parse_junit(src, dialect=JunitDialect.PYTEST)),
            lambda: timed(lambda: expat_pass(xml_path)),
        )
        rows.append(
            (
                f"6 parse a 250,000-case JUnit report ({src.size / 2**20:.0f} MiB) "
                "vs a bare expat pass",
                f"{a:.2f} s",
                f"{b:.2f} s",
                f"{r:.1f}",
                "streamed; < 30 s",
            )
        )
    if 7 in only:
        from verify_pr.reports.jest_json import parse_jest_json

        json_path = jest_report(root / "big.json", 250_000)
        src_json = FileReport(json_path)

        def load_whole() -> None:
            with json_path.open("rb") as fh:
                json.load(fh)

        a, b, r = pairs(
            min(n, 3),
            lambda: timed(lambda: parse_jest_json(src_json)),
            lambda: timed(load_whole),
        )
        rows.append(
            (
                f"7 parse a 250,000-result jest JSON report ({src_json.size / 2**20:.0f} MiB) "
                "vs `json.load`",
                f"{a:.2f} s",
                f"{b:.2f} s",
                f"{r:.1f}",
                "streamed; < 30 s",
            )
        )
    if 8 in only:
        write = "head -c 67108864 /dev/zero > /work/r.txt"
        big = lambda: float(peak_rss_kib(runner(small, MINIMAL, write, "--report", "/work/r.txt")))  # noqa: E731
        idle = lambda: float(peak_rss_kib(runner(small, MINIMAL, "true")))  # noqa: E731
        a, b, _ = pairs(n, big, idle)
        rows.append(
            (
                "8 host peak RSS: a 64 MiB report returned vs `true`",
                f"{a / 1024:.1f} MiB",
                f"{b / 1024:.1f} MiB",
                f"+{(a - b) / 1024:.1f} MiB",
                "within 16 MiB",
            )
        )
    print(f"\npairs per figure: {n} (medians)\n")
    print("| benchmark | verify-pr | baseline | ratio | target |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
    sys.exit(main())
