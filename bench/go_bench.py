"""``verify-pr run --runner go`` on a real Go module vs ``go test -json`` in a bare locked
``docker run`` of the same image, side by side: a median ratio over alternating pairs.

    python bench/go_bench.py [--pairs 3] [--package golang-github-google-uuid-dev]

The module is one of tests/corpus/manifest.json's "debian_go" packages (fetched and checked by
sha256 as the corpus tests do). The bare run is the runner's own command (same settings, the
image's seed cache copied alike), so the ratio is what verify-pr adds: the sandbox, the
report's parse and the verdict. Not a test: the figures go in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # as a script, bench/ is path[0]
from tests.integration.go_helpers import module_tree
from tests.integration.helpers import MANIFEST

from bench.sandbox_bench import bare, pairs
from verify_pr.contract import new_report_path
from verify_pr.runners.go.runner import GoRunner

GO = "verify-pr-go:local"


def timed(cmd: list[str]) -> float:

    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd[:4]} exited {proc.returncode}: {proc.stderr[-2000:]!r}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--package", default="golang-github-google-uuid-dev")
    args = parser.parse_args()
    (entry,) = [e for e in MANIFEST["debian_go"] if e["package"] == args.package]
    root = Path(tempfile.mkdtemp(prefix="vpr-go-bench-"))
    tree = module_tree(entry, root)
    path = new_report_path(".json")
    direct = bare(tree, GO, f"cp -R /repo/. /work/ && {GoRunner().command(path)}")
    run = [sys.executable, "-m", "verify_pr.verify.cli", "run", "--repo", str(tree)]
    run += ["--image", GO, "--runner", "go", "--timeout", "900"]

    def ours() -> float:
        return timed([*run, "--out", tempfile.mkdtemp(prefix="vpr-go-bench-out-")])

    ours_s, bare_s, ratio = pairs(args.pairs, ours, lambda: timed(direct))
    print(
        json.dumps(
            {
                "bench": "go run vs bare go test -json",
                "module": f"{entry['package']} {entry['version']}",
                "pairs": args.pairs,
                "verify_pr_run_s": round(ours_s, 2),
                "bare_docker_run_s": round(bare_s, 2),
                "ratio": round(ratio, 2),
                "machine": f"{platform.machine()} {platform.node()}",
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
