"""The action's install from a cold cache: today's script vs the one pip shipped before uv.

    python bench/install_bench.py [--pairs 6] [--before REV]

Each install goes into a fresh venv with an empty HOME and XDG_CACHE_HOME, so neither pip nor uv
finds a cached wheel or build. Today's script installs this checkout; the baseline is the
pip-only install as it was at REV (default: the commit that introduced uv's bootstrap, minus
one): its script, its lock (which held the build backend its wheel build needed) and its
package, exported from git. Both run side by side in one process, alternating.
Not a test: the figures go in docs/benchmarks.md's table with the machine they ran on.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.sandbox_bench import pairs

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "action_install.sh"
# The last commit whose install was pip alone (found by git from the bootstrap lock's first add).
PIP_REV_CMD = ["git", "log", "--format=%H", "--diff-filter=A", "--", "requirements/bootstrap.txt"]


def pip_root(rev: str | None, dest: Path) -> Path:
    """REV's whole tree (script, lock, package) exported to ``dest``; its install script."""
    if rev is None:
        added = subprocess.run(PIP_REV_CMD, cwd=ROOT, capture_output=True, text=True, check=True)
        first = added.stdout.split()
        rev = f"{first[-1]}~1" if first else "HEAD"
    dest.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    script = dest / "scripts" / "action_install.sh"
    text = script.read_text(encoding="utf-8")
    if "uv" in text.split("set -euo pipefail", 1)[-1]:
        raise SystemExit(f"{rev}'s action_install.sh already uses uv: pass --before")
    return script


def cold_install(script: Path, scratch: Path) -> float:
    """One install of the script's own tree into a new venv, with a new, empty home and cache;
    wall seconds."""
    run = Path(tempfile.mkdtemp(prefix="vpr-install-", dir=scratch))
    home = run / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    env |= {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    start = time.perf_counter()
    done = subprocess.run(
        ["bash", str(script), str(script.parents[1]), str(run / "venv")],
        cwd=run,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{script} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    shutil.rmtree(run)
    return took


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--before", default=None, help="git revision of the pip-only script")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="vpr-install-bench-"))
    old = pip_root(args.before, scratch / "pip-root")
    print(
        f"machine: {platform.node()} {platform.machine()} {os.cpu_count()} cores, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    )
    a, b, r = pairs(
        args.pairs, lambda: cold_install(SCRIPT, scratch), lambda: cold_install(old, scratch)
    )
    shutil.rmtree(scratch)
    print(f"\npairs: {args.pairs} (medians)\n")
    print("| benchmark | verify-pr | baseline | ratio | target |")
    print("|---|---|---|---|---|")
    row = "action install cold: uv vs the former pip-only install"
    print(f"| {row} | {a:.2f} s | {b:.2f} s | {r:.2f} | <= 0.4 |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
