"""Benchmark 6: ``verify-pr compare`` of a real fix against one bare ``docker run`` of the same
suite, as a median ratio over alternating pairs in one run.

    python -m bench.compare_bench [--pairs 3]

The fix is parse 1.20.1 -> 1.20.2 (two real releases made into a two-commit repo, as the
history corpus does). The compare runs three sandboxes (before, head, base's own, in parallel
when the machine has the cores) and re-runs each FAIL_TO_PASS test alone per side. Not a test:
the figures go in the README's table with the machine they ran on.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.sandbox_bench import PYTHON, bare, pairs

ROOT = Path(__file__).resolve().parents[1]
RELEASES = ("parse==1.20.1", "parse==1.20.2")
_GIT_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/nonexistent",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@verify-pr.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@verify-pr.invalid",
}


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, env=_GIT_ENV, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def history_repo(root: Path) -> tuple[Path, str, str, Path]:
    """A two-commit repo (base release, head release) and head's unpacked tree."""
    dl = root / "dl"
    trees = []
    for spec in RELEASES:
        pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary"]
        subprocess.run([*pip, ":all:", "-d", str(dl), spec], check=True)
        name = spec.replace("==", "-")
        subprocess.run(["tar", "-xzf", str(dl / f"{name}.tar.gz"), "-C", str(root)], check=True)
        trees.append(root / name)
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    shas = []
    for tree in trees:
        for child in repo.iterdir():
            if child.name != ".git":
                subprocess.run(["rm", "-rf", str(child)], check=True)
        subprocess.run(["cp", "-R", f"{tree}/.", str(repo)], check=True)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", tree.name)
        shas.append(_git(repo, "rev-parse", "HEAD"))
    os.system(f"chmod -R a+rX {root}")  # noqa: S605 (bench fixture, our own temp path)
    return repo, shas[0], shas[1], trees[1]


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1, 4):
        raise SystemExit(f"{cmd[:4]} exited {done.returncode}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="vpr-bench-compare-"))
    repo, base, head, head_tree = history_repo(root)
    suite = "cp -R /repo/. /work/ && python3 -m pytest -q -p no:cacheprovider"

    def compare(*extra: str) -> float:
        out = tempfile.mkdtemp(prefix="vpr-bench-out-")
        cli = [sys.executable, "-m", "verify_pr.verify.cli", "compare", "--git", str(repo)]
        cli += ["--base", base, "--head", head, "--image", PYTHON, "--runner", "pytest"]
        return timed([*cli, "--out", out, *extra])

    def bare_run() -> float:
        return timed(bare(head_tree, PYTHON, suite))

    print("| benchmark | verify-pr | baseline | ratio | target |")
    print("|---|---|---|---|---|")
    for label, extra in (
        ("C1 compare parse 1.20.1 -> 1.20.2 (default: 2 FAIL_TO_PASS re-run 3x per side)", ()),
        ("C1b the same with `--flake-runs 0` (three runs only)", ("--flake-runs", "0")),
    ):
        x, y, ratio = pairs(args.pairs, lambda e=extra: compare(*e), bare_run)
        print(f"| {label} vs one bare docker run | {x:.2f} s | {y:.2f} s | {ratio:.2f} | <= 1.3 |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
