"""Benchmark 6: ``verify-pr compare`` of a real fix against one bare ``docker run`` of head's
suite (1 CPU, as a sandbox has), as a median ratio over alternating pairs in one run.

    python -m bench.compare_bench [--pairs 3] [--rows C1,C2,P5,L5,P20] [--lines default,runs]
                                  [--old-src OTHER_CHECKOUT/src]

Each row is a real fix made into a two-commit repo (base release, head release), pinned by
sha256: parse 1.20.1 -> 1.20.2 (pytest), jest-when 3.5.1 -> 3.5.2 (jest), and parso 0.8.4 ->
0.8.5 and lark 1.2.1 -> 1.2.2 (pytest, ~5 s suites) from the history corpus
(tests/corpus/manifest.json), each compared with --strict-harness when its entry says so, and
Pygments 2.19.0 -> 2.19.1 (pytest, a ~20 s suite of 5,200 tests: 2.19.1 fixed regressions of
the INI and Lua lexers, with new and edited golden files, so base's own run is the whole
suite), run in an image made here from the python image plus wcag-contrast-ratio (pure
Python, pinned), which one test module imports, with its random test's input seeded in
both releases alike (``PINS``). The compare starts before, head and base's
own (when the PR edits a test path) together, sharing the two cores,
then every repetition of the proof's re-runs at once (jest: one process per side repeating
the selection; the others a sandbox per side and repetition). ``--old-src`` adds a
line per row: this compare against another checkout's (its ``src`` on PYTHONPATH), alternating.
Each line says the load average (``/proc/loadavg``, 1 min) before and after it, and the
row's floor (``bench.compare_floor``: the CPU of the verdict's sandbox runs, each timed alone,
over the cores; never below the longest run) with the compare's ratio to it. PF is pyflakes
3.3.2's fix made of its Python files only (the code fix and its tests, no data file changed).
Not a test: the figures go in docs/benchmarks.md's table with the machine they ran on.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.sandbox_bench import PYTHON, bare, pairs

NODE = "verify-pr-node:local"
MANIFEST = Path(__file__).resolve().parents[1] / "tests" / "corpus" / "manifest.json"

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


def _fetch(spec: dict[str, str], dl: Path) -> Path:
    """A release from the history corpus's pins (PyPI sdist or npm tarball), hash-checked."""
    archive = dl / spec["file"]
    if not archive.exists():
        if spec["file"].endswith(".tgz"):
            npm = ["npm", "pack", "--ignore-scripts", "--pack-destination", str(dl)]
            subprocess.run(
                [*npm, f"{spec['name']}@{spec['version']}"], check=True, capture_output=True
            )
        else:
            pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary"]
            subprocess.run([*pip, ":all:", "-d", str(dl), f"{spec['name']}=={spec['version']}"])
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != spec["sha256"]:
        raise SystemExit(f"{archive.name}: sha256 {digest} is not the pinned {spec['sha256']}")
    return archive


def _python_files_only(base: Path, head: Path, dest: Path) -> Path:
    """Base's tree with head's Python files (added, changed, removed) and nothing else of head:
    a code fix and its tests, no data, docs or version file."""
    subprocess.run(["cp", "-R", f"{base}/.", str(dest)], check=True)
    for path in dest.rglob("*.py"):
        if not (head / path.relative_to(dest)).exists():
            path.unlink()
    for path in head.rglob("*.py"):
        target = dest / path.relative_to(head)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    return dest


def _pin(tree: Path, pins: tuple[tuple[str, str, str], ...]) -> None:
    """Each (path, text, replacement): the text, found exactly once, replaced in ``tree``."""
    for rel, text, replacement in pins:
        path = tree / rel
        source = path.read_text()
        if source.count(text) != 1:
            raise SystemExit(f"{path}: {text!r} is not there exactly once")
        path.write_text(source.replace(text, replacement))


def history_repo(
    root: Path,
    entry: dict[str, Any],
    python_only: bool = False,
    pins: tuple[tuple[str, str, str], ...] = (),
) -> tuple[Path, str, str, Path]:
    """A two-commit repo (base release, head release) and head's unpacked tree; with
    ``python_only``, head is base's tree with head's Python files only; ``pins`` are applied
    to both releases alike (``PINS``)."""
    dl = root / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    trees = []
    for side in ("base", "head"):
        dest = root / side
        dest.mkdir()
        subprocess.run(["tar", "-xzf", str(_fetch(entry[side], dl)), "-C", str(dest)], check=True)
        (tree,) = [p for p in dest.iterdir() if p.is_dir()]
        _pin(tree, pins)
        trees.append(tree)
    if python_only:
        trees[1] = _python_files_only(trees[0], trees[1], root / "head-python-only")
    repo = root / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    shas = []
    for tree in trees:
        for child in repo.iterdir():
            if child.name != ".git":
                subprocess.run(["rm", "-rf", str(child)], check=True)
        subprocess.run(["cp", "-R", f"{tree}/.", str(repo)], check=True)
        if shas:  # hash every file again: git's stat check can miss a same-size edit
            _git(repo, "rm", "-r", "--cached", "-q", ".")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", tree.name)
        shas.append(_git(repo, "rev-parse", "HEAD"))
    os.system(f"chmod -R a+rX {root}")  # noqa: S605 (bench fixture, our own temp path)
    return repo, shas[0], shas[1], trees[1]


# Pygments 2.19.0 -> 2.19.1 and the module its contrast test imports (PyPI sdists).
PYGMENTS = {
    "id": "pygments-2.19.1",
    "runner": "pytest",
    "base": {
        "name": "Pygments",
        "version": "2.19.0",
        "file": "pygments-2.19.0.tar.gz",
        "sha256": "afc4146269910d4bdfabcd27c24923137a74d562a23a320a41a55ad303e19783",
    },
    "head": {
        "name": "Pygments",
        "version": "2.19.1",
        "file": "pygments-2.19.1.tar.gz",
        "sha256": "61c16d2a8576dc0649d9f39e089b5f02bcd27fba10d8fb4dcc28173f7a45151f",
    },
    "strict_harness": False,  # no file that judges the PR changes
}
WCAG = {
    "name": "wcag-contrast-ratio",
    "version": "0.9",
    "file": "wcag-contrast-ratio-0.9.tar.gz",
    "sha256": "69192b8e5c0a7d0dc5ff1187eeb3e398141633a4bde51c69c87f58fe87ed361c",
}
PYGMENTS_IMAGE = "verify-pr-bench-pygments:local"


def pygments_image(root: Path) -> str:
    """The python image plus wcag_contrast_ratio (pure Python, copied into dist-packages)."""
    dl = root / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    ctx = root / "image"
    ctx.mkdir()
    subprocess.run(["tar", "-xzf", str(_fetch(WCAG, dl)), "-C", str(ctx)], check=True)
    (ctx / "Dockerfile").write_text(
        f"FROM {PYTHON}\nCOPY wcag-contrast-ratio-0.9/wcag_contrast_ratio "
        "/usr/lib/python3/dist-packages/wcag_contrast_ratio\n"
    )
    subprocess.run(["docker", "build", "-q", "-t", PYGMENTS_IMAGE, str(ctx)], check=True)
    return PYGMENTS_IMAGE


def _load() -> str:
    """The 1-minute load average: other work on the machine shares its cores."""
    return Path("/proc/loadavg").read_text().split()[0]


def timed(cmd: list[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1, 4):
        raise SystemExit(f"{cmd[:4]} exited {done.returncode}")
    return elapsed


PYTEST = "python3 -m pytest -q -p no:cacheprovider"
# (row, history entry, image, bare command of head's suite, target); --strict-harness comes
# from the entry, as the history test takes it. PF: pyflakes 3.3.2's fix with its Python files
# only (the code fix and its tests, no data, docs or changelog: the common PR shape)
ROWS = (
    ("C1", "parse-1.20.2", PYTHON, PYTEST, 1.3),
    ("C2", "jest-when-3.5.2", NODE, "jest --ci", 2.5),
    ("P5", "parso-0.8.5", PYTHON, PYTEST, 2.0),
    ("L5", "lark-1.2.2", PYTHON, PYTEST, 2.0),
    ("P20", "pygments-2.19.1", PYGMENTS_IMAGE, PYTEST, 1.7),
    ("PF", "pyflakes-3.3.2", PYTHON, PYTEST, 2.0),
)
PYTHON_ONLY = frozenset({"PF"})
# Edits made to base and head alike, so that a row measures verify-pr and not its suite's
# luck. Pygments' test_random_input feeds every lexer one input shuffled by `random` at import:
# some shuffles kept CFamilyLexer backtracking for minutes (3 of about 20 P20 compares); seed 1
# is a usual one (test_random_input's 597 tests: 5.0 s; seeds 2 and 3: 6.2 s, 5.2 s; 0: 9.0 s).
PINS = {
    "P20": (
        (
            "tests/test_basic_api.py",
            "\nrandom.shuffle(test_content)\n",
            "\nrandom.Random(1).shuffle(test_content)\n",
        ),
    ),
}
FLOOR_TARGET = 1.15


def floor(cmd: list[str]) -> float:
    """The compare's floor (``bench.compare_floor``): its runs' CPU alone over the cores."""
    cores = str(len(os.sched_getaffinity(0)))
    tool = [sys.executable, "-m", "bench.compare_floor", cores, *cmd[3:]]
    out = tempfile.mkdtemp(prefix="vpr-bench-out-")
    done = subprocess.run([*tool, "--out", out], capture_output=True, text=True, check=False)
    if not done.stdout.strip():
        raise SystemExit(f"bench.compare_floor printed no floor:\n{done.stderr[-3000:]}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["floor"])


def measure(
    row: str,
    entry: dict[str, Any],
    image: str,
    suite: str,
    n: int,
    target: float,
    old_src: Path | None = None,
    variants: tuple[str, ...] = ("default", "runs"),
) -> list[str]:
    """The row's two lines: compare with the default re-runs, and without them; with
    ``old_src`` (another checkout's ``src``), a third: this compare against that one's."""
    root = Path(tempfile.mkdtemp(prefix="vpr-bench-compare-"))
    repo, base, head, head_tree = history_repo(root, entry, row in PYTHON_ONLY, PINS.get(row, ()))
    cli = [sys.executable, "-m", "verify_pr.verify.cli", "compare", "--git", str(repo)]
    cli += ["--base", base, "--head", head, "--image", image, "--runner", entry["runner"]]
    options = ("--strict-harness",) if entry["strict_harness"] else ()
    script = f"cp -R /repo/. /work/ && cd /work && {suite}"
    bare_cmd = bare(head_tree, image, script)
    bare_cmd[2:2] = ["--cpus", "1"]  # a sandbox's CPUs (the default --cpus 1)
    name = f"{entry['base']['name']} {entry['base']['version']} -> {entry['head']['version']}"
    lines = []
    for label, extra in (
        (f"{row} compare {name} (default: the proof re-run 3x per side)", ()),
        (f"{row}b the same with `--flake-runs 0` (the runs only)", ("--flake-runs", "0")),
    ):
        if ("runs" if extra else "default") not in variants:
            continue
        load = _load()
        cmd = [*cli, *options, *extra]
        x, y, ratio = pairs(
            n,
            lambda c=cmd: timed([*c, "--out", tempfile.mkdtemp(prefix="vpr-bench-out-")]),
            lambda: timed(bare_cmd),
        )
        low = floor(cmd)
        lines.append(
            f"| {label} vs one bare docker run of head's suite | {x:.2f} s | {y:.2f} s "
            f"| {ratio:.2f} | <= {target} | {low:.2f} s | {x / low:.2f} (<= {FLOOR_TARGET}) "
            f"| {load}-{_load()} |"
        )
    if old_src is not None:
        load = _load()
        env = {**os.environ, "PYTHONPATH": str(old_src)}
        cmd = [*cli, *options]
        x, y, ratio = pairs(
            n,
            lambda: timed([*cmd, "--out", tempfile.mkdtemp(prefix="vpr-bench-out-")]),
            lambda: timed([*cmd, "--out", tempfile.mkdtemp(prefix="vpr-bench-out-")], env),
        )
        lines.append(
            f"| {row}o this compare (default re-runs) vs the one in {old_src} | {x:.2f} s "
            f"| {y:.2f} s | {ratio:.2f} | < 1 | | | {load}-{_load()} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument(
        "--rows",
        default="C1,C2,P5,L5,P20,PF",
        help="comma-separated: C1 (parse), C2 (jest), P5 (parso), L5 (lark), P20 (pygments), "
        "PF (pyflakes, its Python files only)",
    )
    parser.add_argument(
        "--lines", default="default,runs", help="default (re-runs), runs (--flake-runs 0)"
    )
    parser.add_argument("--old-src", type=Path, help="also time the compare of this src folder")
    args = parser.parse_args()
    history = {e["id"]: e for e in json.loads(MANIFEST.read_text())["history"]}
    history[PYGMENTS["id"]] = PYGMENTS
    print("| benchmark | verify-pr | baseline | ratio | target | floor | vs floor | load |")
    print("|---|---|---|---|---|---|---|---|")
    for row, entry_id, image, suite, target in ROWS:
        if row not in args.rows.split(","):
            continue
        if image == PYGMENTS_IMAGE:
            pygments_image(Path(tempfile.mkdtemp(prefix="vpr-bench-image-")))
        entry = history[entry_id]
        variants = tuple(args.lines.split(","))
        lines = measure(row, entry, image, suite, args.pairs, target, args.old_src, variants)
        for line in lines:
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
