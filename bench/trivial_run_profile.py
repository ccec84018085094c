"""Where a trivial sandbox run (`--cmd true`) spends its time: imports, each Docker API call.

    python bench/trivial_run_profile.py [--runs 7]

Two parts, medians over --runs fresh processes:
- imports: ``python -X importtime -m verify_pr.sandbox.cli ...`` of a real run, the cumulative
  time of the heavy top-level packages (docker, requests, urllib3, pydantic) and of all imports;
- API calls: the same run in a child process that wraps the Docker adapter's one call method
  with a clock (the run itself is unchanged), each call by what it was doing, in order.
Not a test and not a ratio: it says where to cut; bench/sandbox_bench.py row 1 says how far.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

MINIMAL = "verify-pr-minimal:local"
HEAVY = ("docker", "requests", "urllib3", "pydantic", "pydantic_core", "verify_pr.models.sandbox")

# Run in the child: time each DockerApi call and the client's construction, then run the CLI.
_CHILD = r"""
import json, sys, time
from verify_pr.sandbox import docker_api
timings = []
call = docker_api.DockerApi.call
def timed(self, doing, fn, *args, **kwargs):
    start = time.perf_counter()
    try:
        return call(self, doing, fn, *args, **kwargs)
    finally:
        timings.append((doing, time.perf_counter() - start))
docker_api.DockerApi.call = timed
for name in ("remove", "kill"):
    original = getattr(docker_api.DockerApi, name)
    def wrapped(self, cid, _o=original, _n=name):
        start = time.perf_counter()
        try:
            return _o(self, cid)
        finally:
            timings.append((_n, time.perf_counter() - start))
    setattr(docker_api.DockerApi, name, wrapped)
from verify_pr.sandbox.cli import main
start = time.perf_counter()
rc = main(sys.argv[2:])
total = time.perf_counter() - start
with open(sys.argv[1], "w") as out:
    json.dump({"calls": timings, "main": total}, out)
"""


def run_args(repo: Path) -> list[str]:
    out = tempfile.mkdtemp(prefix="vpr-prof-out-")
    return ["--repo", str(repo), "--out", out, "--image", MINIMAL, "--cmd", "true"]


def import_times(repo: Path) -> dict[str, float]:
    cmd = [sys.executable, "-X", "importtime", "-m", "verify_pr.sandbox.cli", *run_args(repo)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    found: dict[str, float] = {}
    total = 0.0
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if not m:
            continue
        self_us, cumulative, indent, name = int(m[1]), int(m[2]), len(m[3]), m[4]
        total += self_us
        if name in HEAVY and name not in found:
            found[name] = cumulative / 1e6
        del indent
    found["all imports (self times summed)"] = total / 1e6
    return found


def call_times(repo: Path) -> tuple[list[tuple[str, float]], float, float]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        dump = fh.name
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", _CHILD, dump, *run_args(repo)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    wall = time.perf_counter() - start
    data = json.loads(Path(dump).read_text())
    os.unlink(dump)
    return [tuple(c) for c in data["calls"]], data["main"], wall  # type: ignore[misc]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="vpr-prof-"))
    repo = root / "repo"
    repo.mkdir()
    (repo / "f.txt").write_text("x\n")
    os.system(f"chmod -R a+rX {root}")  # noqa: S605 (bench fixture, our own temp path)
    imports: dict[str, list[float]] = defaultdict(list)
    calls: dict[str, list[float]] = defaultdict(list)
    order: list[str] = []
    mains, walls, bare = [], [], []
    for _ in range(args.runs):
        for name, took in import_times(repo).items():
            imports[name].append(took)
        seen, in_main, wall = call_times(repo)
        per: dict[str, float] = defaultdict(float)
        for doing, took in seen:
            per[doing] += took
            if doing not in order:
                order.append(doing)
        for doing, took in per.items():
            calls[doing].append(took)
        mains.append(in_main)
        walls.append(wall)
        start = time.perf_counter()
        subprocess.run(["docker", "run", "--rm", "--network", "none", MINIMAL, "true"], check=True)
        bare.append(time.perf_counter() - start)
    med = statistics.median
    print(f"runs: {args.runs} (medians, ms)\n\n| part | ms |\n|---|---|")
    for name, took in imports.items():
        print(f"| import {name} (cumulative) | {med(took) * 1000:.0f} |")
    for doing in order:
        print(f"| API: {doing} | {med(calls[doing]) * 1000:.0f} |")
    api_total = med([sum(c[i] for c in calls.values() if i < len(c)) for i in range(args.runs)])
    print(f"| API calls, all | {api_total * 1000:.0f} |")
    print(f"| cli main() in-process | {med(mains) * 1000:.0f} |")
    print(f"| process wall | {med(walls) * 1000:.0f} |")
    print(f"| `docker run --rm` (same runs) | {med(bare) * 1000:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
