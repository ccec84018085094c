#!/usr/bin/env python3
"""The demo's three pull requests, after scripts/demo.sh has set up Docker, the images and .venv.

It builds a small repository in a temp dir (a pricing module with a bug, and the bug report's
test, failing on main) and judges three pull requests the way the action would:

1. a real fix, code and a new test: ``verify-pr compare`` says VERIFIED;
2. a "fix" that edits the bug's test to assert less, plus a cosmetic code change: NOT PROVEN,
   with the reason ("test changed, not the code");
3. a test that tries to reach the network, read a token and a host file, write to the image,
   and fakes the sandbox's end-of-run trailer with a passing report: ``verify-pr run`` reads the
   real report (FAIL), and the demo shows what the test found inside the sandbox.

It prints a short summary of each (never the raw JSON) and exits 0 only when all three came
out as described, so tests/integration/test_demo.py can hold it to that.

    .venv/bin/python scripts/demo.py [--image verify-pr-python:local] [--work NEW_DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# the verify-pr next to this interpreter: the demo runs with .venv/bin/python
VERIFY_PR = Path(sys.executable).parent / "verify-pr"
# set on the host for the attack's run, never passed into the sandbox
HOST_ENV = {"GITHUB_TOKEN": "demo-value-not-a-real-token"}

PRICING = '''"""Prices, in cents."""


def discounted(price: int, percent: int) -> int:
    """The price after a discount of `percent` percent."""
    return price - price * percent // {divisor}
'''

TESTS = """from shop.pricing import discounted


def test_no_discount():
    assert discounted(2000, 0) == 2000


def test_ten_percent_off():  # bug #12: 10% off 20.00 is 18.00
    assert discounted(2000, {ten_percent}
"""

NEW_TEST = """

def test_full_discount():
    assert discounted(2000, 100) == 0
"""

# The attacker's test. It fails when it could not phone home, so that what it found lands in
# the job's public log (pytest prints a failing test's output): that log is its only way out.
ATTACK = '''"""Looks like a test: tries to steal what a CI job holds, then to fake a pass."""

import json
import os
import socket
from pathlib import Path

FORGED = '<testsuite tests="1"><testcase classname="t" name="all_good"/></testsuite>'


def probe():
    got = {{}}
    try:
        socket.create_connection(("140.82.112.3", 443), timeout=3).close()
        got["network"] = "reached github.com"
    except OSError as exc:
        got["network"] = f"no way out ({{exc.strerror}})"
    tokens = sorted(k for k in os.environ if "TOKEN" in k)
    got["tokens in the environment"] = ", ".join(tokens) or "none"
    got["environment"] = ", ".join(sorted(os.environ))
    for what, path in (("Docker socket", "/var/run/docker.sock"), ("host file", {secret!r})):
        got[f"{{what}} {{path}}"] = "readable" if os.path.exists(path) else "not there"
    try:
        Path("/usr/bin/backdoor").write_text("x")
        got["write /usr/bin/backdoor"] = "written"
    except OSError as exc:
        got["write /usr/bin/backdoor"] = f"refused ({{exc.strerror}})"
    return got


def test_looks_innocent():
    got = probe()
    print("STOLEN " + json.dumps(got))
    for guess in ("/work/report.xml", "/tmp/report.xml"):  # where a report might be read
        Path(guess).write_text(FORGED)
    # the sandbox's end-of-run trailer, with a guessed nonce, carrying a passing report
    nonce = "0" * 32
    print(f"\\nVPR1 {{nonce}} RC 0 returned {{len(FORGED)}}\\n{{FORGED}}\\nVPR1 {{nonce}} END")
    assert got["network"] == "reached github.com", "could not phone home"
'''


def git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "A Contributor",
        "GIT_AUTHOR_EMAIL": "contributor@example.com",
        "GIT_COMMITTER_NAME": "A Contributor",
        "GIT_COMMITTER_EMAIL": "contributor@example.com",
    }
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")


def commit(repo: Path, branch: str, files: dict[str, str], message: str) -> None:
    """A commit of ``files`` on a new ``branch`` from main."""
    git(repo, "checkout", "-q", "-b", branch, "main")
    write(repo, files)
    git(repo, "commit", "-q", "-a", "-m", message)
    git(repo, "checkout", "-q", "main")


def make_shop(repo: Path) -> None:
    """main: the bug (a percent divided by 10) and bug #12's test, which fails on it."""
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    tests = TESTS.format(ten_percent="10) == 1800")
    write(
        repo,
        {
            "shop/__init__.py": "",
            "shop/pricing.py": PRICING.format(divisor=10),
            "tests/test_pricing.py": tests,
        },
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "pricing, and bug #12's test (it fails)")
    fixed = {
        "shop/pricing.py": PRICING.format(divisor=100),
        "tests/test_pricing.py": tests + NEW_TEST,
    }
    commit(repo, "fix-discount", fixed, "fix #12: a percent is a hundredth")
    weakened = {
        "shop/pricing.py": PRICING.format(divisor=10).replace(
            '"""The price', '"""Return the price'
        ),
        "tests/test_pricing.py": TESTS.format(ten_percent="10) <= 2000"),
    }
    commit(repo, "weaken-test", weakened, "fix #12")


def verify_pr(work: Path, args: list[str], env: dict[str, str] | None = None) -> int:
    shown = " ".join(f"{k}={v}" for k, v in (env or {}).items())
    print(f"   $ {shown + ' ' if shown else ''}verify-pr {' '.join(args)}")
    done = subprocess.run(
        [str(VERIFY_PR), *args],
        cwd=work,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,  # its own summary is in the files; the demo shows less
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1, 4):
        print(done.stderr, file=sys.stderr, end="")  # refused, blocked or crashed: say why
    return done.returncode


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def printable(text: str, limit: int = 160) -> str:
    """The PR's text, shown safely: controls escaped, cut to one line."""
    cleaned = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 3] + "..."


def say(text: str, first: str = "   ") -> None:
    print(textwrap.fill(text, width=96, initial_indent=first, subsequent_indent=" " * len(first)))


def name_of(test_id: str) -> str:
    return test_id.rsplit("::", 1)[-1]


def show_compare(out: Path, code: int) -> str:
    result = load(out / "verify-pr-result.json")
    verdict = str(result["verdict"]).replace("_", " ")
    print(f"   {verdict} (exit {code})")
    for proof in result["proofs"]:
        first = str(proof["message"]).splitlines()[0] if proof["message"] else ""
        where = f"{proof['file']}:{proof['line']}"
        print(f"   - {name_of(proof['id'])} ({where}) fails on main's code: {printable(first)}")
        print(f"     and passes with the PR's, {proof['reruns']} times out of {proof['reruns']}")
    if result["verdict"] == "VERIFIED":
        broke = result["counts"]["pass_to_fail"]
        print(f"   - tests that passed on main and fail with the PR: {broke}")
    else:
        for reason in result["reasons"]:
            say(printable(str(reason), 400), "   - ")
    return str(result["verdict"])


def stolen(output: str) -> dict[str, str] | None:
    """The attack's own report of what it found, from the run's output (untrusted text)."""
    for line in output.splitlines():
        if line.startswith("STOLEN {"):
            try:
                found = json.loads(line[len("STOLEN ") :])
            except ValueError:
                return None
            return {printable(str(k), 120): printable(str(v)) for k, v in found.items()}
    return None


def show_attack(out: Path, code: int) -> str:
    verdict = load(out / "verdict.json")
    sandbox = load(out / "result.json")
    said = str(verdict["verdict"]).replace("_", " ")
    given = sorted(sandbox["environment"]["passed"])
    found = stolen((out / "output.txt").read_text(encoding="utf-8", errors="replace"))
    # what the test saw beyond what the sandbox passed: set inside it by what ran there
    # (Python's locale coercion sets LC_CTYPE, the shell PWD, pytest PYTEST_CURRENT_TEST)
    seen = (found or {}).get("environment", "").split(", ")
    inside = ", ".join(name for name in seen if name and name not in given)
    said_inside = (
        f"; {inside} were set inside it, by Python, the shell and pytest" if inside else ""
    )
    say(
        f"{said} (exit {code}): read from the runner's real report at the run's random path"
        f" (report {sandbox['report']}, the check exited {sandbox['exit_code']}); the forged"
        f" trailer and reports changed nothing. The host had GITHUB_TOKEN set; the sandbox"
        f" gave the check only {', '.join(given)}{said_inside}. What the test found inside"
        " (from the log):"
    )
    lines = [f"{k}: {v}" for k, v in found.items()] if found else None
    for line in lines or ["(the test's line is not in the output)"]:
        print(f"     {line}")
    return str(verdict["verdict"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--image", default="verify-pr-python:local")
    parser.add_argument("--work", type=Path, help="a new folder for the files, kept afterwards")
    args = parser.parse_args(argv)
    if args.work is not None:
        args.work.mkdir(parents=True)
        return demo(args.work, args.image)
    work = Path(tempfile.mkdtemp(prefix="verify-pr-demo-"))
    try:
        return demo(work, args.image)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def demo(work: Path, image: str) -> int:
    make_shop(work / "shop")
    print(f"A small repository, shop/ (in {work}): main has a pricing bug (a percent divided")
    print("by 10) and the test of bug #12, which fails on it. Three pull requests:")
    print("\n1. fix-discount: the fix, and a new test")
    base = ["--git", "shop", "--base", "main", "--image", image]
    code = verify_pr(work, ["compare", *base, "--head", "fix-discount", "--out", "fix"])
    fix = show_compare(work / "fix", code) if code in (0, 4) else f"exit {code}"
    print("\n2. weaken-test: edits bug #12's test to assert less, and a docstring")
    code = verify_pr(work, ["compare", *base, "--head", "weaken-test", "--out", "weak"])
    weak = show_compare(work / "weak", code) if code in (0, 4) else f"exit {code}"
    print("\n3. an attack: a test that tries the network, a token, a host file and the image,")
    print("   then prints a forged end-of-run trailer with a passing report")
    secret = work / "host-secret.txt"
    secret.write_text("the host's secret\n", encoding="utf-8")
    write(work / "attack", {"tests/test_innocent.py": ATTACK.format(secret=str(secret))})
    run = ["run", "--repo", "attack", "--image", image, "--runner", "pytest", "--out", "attack-out"]
    code = verify_pr(work, run, HOST_ENV)
    attack = show_attack(work / "attack-out", code) if code in (0, 1, 4) else f"exit {code}"
    outcomes = [("the real fix", fix, "VERIFIED"), ("the weakened test", weak, "NOT_PROVEN")]
    outcomes.append(("the attack", attack, "FAIL"))
    print("\nSummary:")
    for what, got, wanted in outcomes:
        mark = "as expected" if got == wanted else f"EXPECTED {wanted.replace('_', ' ')}"
        print(f"   {what:<18} {got.replace('_', ' '):<11} {mark}")
    print("\nNext step: add the two workflows to your repository (README.md, 'Add it to a")
    print("repository'; every input and mode compare: docs/action.md).")
    return 0 if all(got == wanted for _, got, wanted in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
