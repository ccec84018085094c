"""Pictures for the README: the check run and the job summary a real compare run produced.

    python scripts/readme_pictures.py run      # real runs -> docs/pictures/<case>/ artifacts
    python scripts/readme_pictures.py render   # artifacts -> <case>-check.md/-summary.md -> PNG
    python scripts/readme_pictures.py --check  # the stored Markdown is what the code renders now

``run`` makes two small repositories and runs ``verify-pr compare`` on them in the sandbox
(needs the Docker daemon and verify-pr-python:local): a real fix (VERIFIED) and a PR that
weakens its test instead of fixing the code (NOT PROVEN). It keeps the flat artifact the verify
action uploads. ``render`` turns each artifact into the Markdown that the publish job posts as
the check run and the verify step writes as the job summary, with the code as it is now, then
renders that Markdown as GitHub does (cmark-gfm, GitHub-flavoured) into HTML, and screenshots
it with headless Chromium (Debian's packages ``cmark-gfm`` and ``chromium``). ``--check``
needs neither: it re-renders the Markdown from the stored artifacts and compares (CI runs it).
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from verify_pr import action  # noqa: E402
from verify_pr.contract import COMPARE_RESULT_FILE  # noqa: E402
from verify_pr.models.compare import CompareResult  # noqa: E402
from verify_pr.publish.conclusion import conclusion_for  # noqa: E402
from verify_pr.publish.intake import validate_artifact  # noqa: E402
from verify_pr.publish.summary import render as render_check  # noqa: E402
from verify_pr.publish.trust import Trust  # noqa: E402
from verify_pr.render.job_summary import compare_job_summary  # noqa: E402

PICTURES = ROOT / "docs" / "pictures"
CASES = ("verified", "not-proven")
HEAD_SHA_FILE = "head-sha.txt"
IMAGE = "verify-pr-python:local"
WIDTH = 960
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TESTS = (
    "from calc import add\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_add_zero():\n    assert add(0, 0) == 0\n"
)
WEAKENED = TESTS.replace("assert add(2, 3) == 5", "assert add(2, 3) in (5, -1)")
CSS = """
body { font: 14px/1.5 -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: #1f2328;
       margin: 0; padding: 24px; width: BODY_WIDTHpx; background: #fff; }
.frame { border: 1px solid #d0d7de; border-radius: 6px; overflow: hidden; }
.bar { background: #f6f8fa; border-bottom: 1px solid #d0d7de; padding: 12px 16px;
       font-weight: 600; }
.bar .badge { display: inline-block; border-radius: 2em; padding: 0 10px; margin-right: 8px;
              color: #fff; font-size: 12px; line-height: 22px; }
.success { background: #1a7f37; } .neutral { background: #6e7781; }
.failure { background: #cf222e; } .action_required { background: #bf8700; }
.summary { background: #0969da; }
.body { padding: 8px 16px 16px; }
h2 { font-size: 1.3em; border-bottom: 1px solid #d8dee4; padding-bottom: .3em; }
h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 8px 0; }
td, th { border: 1px solid #d0d7de; padding: 4px 10px; }
th { background: #f6f8fa; }
code { background: #eff1f3; border-radius: 4px; padding: .1em .3em; font-size: 90%; }
pre { background: #f6f8fa; padding: 12px; overflow: hidden; white-space: pre-wrap; }
pre code { background: none; padding: 0; }
details summary { cursor: pointer; font-weight: 600; }
""".replace("BODY_WIDTH", str(WIDTH - 48))


def _git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.invalid",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.invalid",
        "GIT_AUTHOR_DATE": "2026-12-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-12-01T00:00:00Z",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def run_case(case: str, work: Path) -> None:
    """A real compare in the sandbox; keep the flat artifact the action would upload."""
    repo = work / case
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    base = _commit(repo, {"calc.py": BUGGY, "test_calc.py": TESTS}, "base: add is wrong")
    head_files = {"calc.py": FIXED} if case == "verified" else {"test_calc.py": WEAKENED}
    head = _commit(repo, head_files, "the PR")
    out = work / f"{case}-out"
    subprocess.run(
        [
            sys.executable,
            "-I",
            "-m",
            "verify_pr.verify.cli",
            "compare",
            "--git",
            str(repo),
            "--base",
            base,
            "--head",
            head,
            "--image",
            IMAGE,
            "--runner",
            "pytest",
            "--out",
            str(out),
        ],
        check=False,
    )
    dest = PICTURES / case
    shutil.rmtree(dest, ignore_errors=True)
    PICTURES.mkdir(parents=True, exist_ok=True)
    action.flatten_compare(out, dest)
    (dest / HEAD_SHA_FILE).write_text(head + "\n", encoding="utf-8")


def markdown_for(case: str) -> tuple[str, str, str]:
    """(conclusion, check-run Markdown, job-summary Markdown) rendered by the code as it is."""
    folder = PICTURES / case
    files = {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != HEAD_SHA_FILE}
    head_sha = (folder / HEAD_SHA_FILE).read_text(encoding="utf-8").strip()
    intake = validate_artifact(files, head_sha)
    trust = Trust()  # the picture shows a trusted PR: no protected file changed
    conclusion = conclusion_for(intake, trust)
    output = render_check(intake, trust, conclusion)
    check = f"# {output.title}\n\n{output.summary}\n{output.text or ''}"
    result = CompareResult.model_validate_json(files[COMPARE_RESULT_FILE])
    return conclusion.value, check, compare_job_summary(result)


def _html(title: str, badge: str, body_md: str) -> str:
    body = subprocess.run(
        [
            "cmark-gfm",
            "--extension",
            "table",
            "--extension",
            "autolink",
            "--extension",
            "strikethrough",
            "--extension",
            "tasklist",
        ],
        input=body_md,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return (
        f"<!doctype html><meta charset=utf-8><style>{CSS}</style>"
        f"<div class=frame><div class=bar><span class='badge {badge}'>{html.escape(badge)}"
        f"</span>{html.escape(title)}</div><div class=body>{body}</div></div>"
        "<script>document.title = 'h' + document.documentElement.scrollHeight;</script>"
    )


def _chromium(*args: str, profile: Path) -> str:
    argv = [
        "chromium",
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=120).stdout


def screenshot(page: str, png: Path) -> None:
    """Two passes: the page's height from its own script, then a screenshot of exactly that."""
    with tempfile.TemporaryDirectory() as tmp:
        html_file = Path(tmp) / "page.html"
        html_file.write_text(page, encoding="utf-8")
        dom = _chromium(
            f"--window-size={WIDTH},800", "--dump-dom", html_file.as_uri(), profile=Path(tmp) / "p1"
        )
        match = re.search(r"<title>h(\d+)</title>", dom)
        height = int(match.group(1)) if match else 1600
        _chromium(
            f"--window-size={WIDTH},{height}",
            f"--screenshot={png}",
            html_file.as_uri(),
            profile=Path(tmp) / "p2",
        )


def render(case: str) -> None:
    conclusion, check, summary = markdown_for(case)
    (PICTURES / f"{case}-check.md").write_text(check, encoding="utf-8")
    (PICTURES / f"{case}-summary.md").write_text(summary, encoding="utf-8")
    title = check.split("\n", 1)[0].removeprefix("# ")
    screenshot(
        _html(f"verify-pr — {title}", conclusion, check.split("\n", 1)[1]),
        PICTURES / f"{case}-check.png",
    )
    screenshot(_html("Job summary: verify", "summary", summary), PICTURES / f"{case}-summary.png")


def check() -> int:
    stale = []
    for case in CASES:
        _, check_md, summary_md = markdown_for(case)
        for name, text in ((f"{case}-check.md", check_md), (f"{case}-summary.md", summary_md)):
            stored = PICTURES / name
            if not stored.is_file() or stored.read_text(encoding="utf-8") != text:
                stale.append(name)
    if stale:
        print(
            "readme pictures are stale: "
            + ", ".join(stale)
            + " (run: python scripts/readme_pictures.py render)",
            file=sys.stderr,
        )
        return 1
    print(f"readme pictures: {len(CASES) * 2} Markdown sources match the code")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("what", nargs="?", choices=("run", "render"))
    parser.add_argument("--check", action="store_true")
    ns = parser.parse_args()
    if ns.check:
        return check()
    if ns.what == "run":
        with tempfile.TemporaryDirectory() as tmp:
            for case in CASES:
                run_case(case, Path(tmp))
    elif ns.what == "render":
        for case in CASES:
            render(case)
    else:
        parser.error("say run, render or --check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
