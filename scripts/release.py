"""Make a release of verify-pr on the current branch: docs/release.md's commits, in one command.

Run by scripts/release.sh (read it for the usage). Standard library only: it must run from a
fresh clone before any venv exists.

1. **Release commit R.** When the reusable workflows' self-pins name a commit whose shipped
   code differs from HEAD's, they are moved to P = HEAD (``# main YYYY-MM-DD``, P's committer
   date in UTC) and committed: R changes those two lines and nothing else. When they already
   name HEAD's code, R is HEAD and no commit is made.
2. **Tag** (``--tag`` only): ``vX.Y.Z`` from pyproject.toml, annotated, on R.
3. **Pin-bump commit.** Every self-pin of the docs (README.md, docs/, workflow-templates/, any
   tracked .md/.yml outside tests/ and .github/) names R, with ``# vX.Y.Z`` when tagged, else
   ``# main YYYY-MM-DD`` (R's date); CHANGELOG.md's top entry says which commit it is.

When the docs already pin a commit whose shipped files equal HEAD's, it says so and changes
nothing. The pin checks (tests/unit/test_self_pins.py) run after, in release.sh.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tomllib
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What a caller of verify-pr@<sha> runs: the actions, the package, its install and its locks.
# tests/unit/test_self_pins.py checks the pins against this list too.
CODE_PATHS = (
    "action.yml",
    "entrypoint",
    "publish",
    "src",
    "scripts/action_install.sh",
    "requirements",
    "pyproject.toml",
)
REUSABLE = (".github/workflows/verify.yml", ".github/workflows/publish.yml")
SCANNED_SUFFIXES = (".md", ".yml", ".yaml")
_USES = re.compile(
    r"(?P<head>verify-pr/verify-pr(?:/[\w./-]+)?@)(?P<sha>[0-9a-f]{40})(?P<rest>.*)$"
)
_CHECKOUT = re.compile(
    r"^(?P<indent>\s*)repository:\s*verify-pr/verify-pr\s*$\n"
    r"(?:(?P=indent)\w[\w-]*:.*\n)*?"
    r"(?P=indent)ref:\s*(?P<sha>[0-9a-f]{40})(?P<rest>.*)$",
    re.MULTILINE,
)
_TOP_ENTRY = re.compile(r"^## (?P<version>\d+\.\d+\.\d+)\b.*$", re.MULTILINE)
RELEASED_AS = "Released as "


class Refused(Exception):
    """The release cannot be made as asked; the message says why."""


def git(*args: str, check: bool = True) -> str:
    done = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", "-C", str(ROOT), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if check and done.returncode != 0:
        raise Refused(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def day_of(sha: str) -> str:
    """The commit's committer date, in UTC (what the pin comment states)."""
    stamp = int(git("show", "-s", "--format=%ct", sha))
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d")


def differing(sha: str, paths: tuple[str, ...]) -> list[str]:
    """The shipped files that differ between ``sha`` and HEAD (committed trees only)."""
    if not is_commit(sha):
        return [f"(commit {sha} is not in this repository)"]
    out = git("diff", "--name-only", sha, "HEAD", "--", *paths)
    return out.splitlines()


def is_commit(sha: str) -> bool:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{sha}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def tracked_docs() -> list[Path]:
    """The files whose self-pins a user copies: tracked .md/.yml outside tests/ and .github/."""
    names = git("ls-files", "-z").split("\0")
    return [
        ROOT / n
        for n in names
        if n.endswith(SCANNED_SUFFIXES) and not n.startswith(("tests/", ".github/"))
    ]


def shas_in(text: str) -> set[str]:
    found = {m.group("sha") for line in text.splitlines() for m in [*_USES.finditer(line)]}
    return found | {m.group("sha") for m in _CHECKOUT.finditer(text)}


def repin(text: str, sha: str, comment: str) -> str:
    """Every self-pin of ``text`` names ``sha`` with ``# comment``."""
    lines = [
        _USES.sub(lambda m: f"{m['head']}{sha} # {comment}", line) for line in text.split("\n")
    ]
    text = "\n".join(lines)
    return _CHECKOUT.sub(
        lambda m: m.group(0)[: m.start("sha") - m.start(0)] + f"{sha} # {comment}", text
    )


def version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def changelog_top(text: str) -> str | None:
    found = _TOP_ENTRY.search(text)
    return found.group("version") if found else None


def note_release(text: str, sha: str, comment: str) -> str:
    """CHANGELOG.md's top entry names the commit the docs pin (one line, replaced in place)."""
    found = _TOP_ENTRY.search(text)
    if found is None:
        raise Refused("CHANGELOG.md has no '## X.Y.Z' entry")
    line = f"{RELEASED_AS}`{sha}` (`# {comment}`): the commit README.md and docs/ pin."
    start = found.end() + 1
    nxt = text.find("\n## ", start)
    end = len(text) if nxt < 0 else nxt
    entry = text[start:end]
    kept = "\n".join(x for x in entry.split("\n") if not x.startswith(RELEASED_AS))
    kept = kept.lstrip("\n")
    return f"{text[:start]}\n{line}\n\n{kept}" + text[end:]


def commit(message: str, paths: list[Path]) -> str:
    git("add", "--", *(str(p.relative_to(ROOT)) for p in paths))
    git("commit", "--quiet", "--no-verify", "-m", message)
    return git("rev-parse", "HEAD")


def write_if_changed(path: Path, text: str) -> bool:
    if path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def release(tag: bool) -> int:
    if git("status", "--porcelain", "--untracked-files=no"):
        raise Refused("the work tree has uncommitted changes: commit or stash them first")
    ver = version()
    changelog = ROOT / "CHANGELOG.md"
    top = changelog_top(changelog.read_text(encoding="utf-8"))
    if top != ver:
        raise Refused(
            f"CHANGELOG.md's top entry is {top}, pyproject.toml's version is {ver}: "
            "add the entry that describes this release"
        )
    docs = {p: p.read_text(encoding="utf-8") for p in tracked_docs()}
    doc_shas = set().union(*(shas_in(t) for t in docs.values()))
    workflows = {ROOT / w: (ROOT / w).read_text(encoding="utf-8") for w in REUSABLE}
    wf_shas = set().union(*(shas_in(t) for t in workflows.values()))
    if not doc_shas or not wf_shas:
        raise Refused("found no self-pin to move (the docs' or the reusable workflows')")
    wf_stale = {s: differing(s, CODE_PATHS) for s in wf_shas}
    docs_stale = {s: differing(s, CODE_PATHS + REUSABLE) for s in doc_shas}
    if len(doc_shas) == 1 and not any(wf_stale.values()) and not any(docs_stale.values()):
        (pinned,) = doc_shas
        print(
            f"release: nothing to do: the docs pin {pinned[:12]}, whose shipped files equal HEAD's"
        )
        return 0
    for sha, files in sorted(docs_stale.items()):
        if files:
            print(
                f"release: the docs pin {sha[:12]}, which differs from HEAD in {', '.join(files)}"
            )
    # 1. the release commit R: the reusable workflows pin P = HEAD
    if any(wf_stale.values()):
        p = git("rev-parse", "HEAD")
        p_comment = f"main {day_of(p)}"
        changed = [w for w, t in workflows.items() if write_if_changed(w, repin(t, p, p_comment))]
        r = commit(
            f"release: reusable workflows pin verify-pr's own actions to {p[:7]} "
            f"({p_comment}), the code of this release",
            changed,
        )
        print(f"release: commit R {r[:12]}: the reusable workflows pin P {p[:12]} # {p_comment}")
    else:
        r = git("rev-parse", "HEAD")
        print(f"release: the reusable workflows already pin HEAD's code; R is HEAD {r[:12]}")
    # 2. the tag
    comment = f"main {day_of(r)}"
    if tag:
        name = f"v{ver}"
        existing = git(
            "rev-parse", "--verify", "--quiet", f"refs/tags/{name}^{{commit}}", check=False
        )
        if existing and existing != r:
            raise Refused(f"tag {name} exists and points at {existing[:12]}: bump the version")
        if not existing:
            git("tag", "-a", name, "-m", f"verify-pr {name}", r)
        comment = name
        print(f"release: tagged {r[:12]} {name} (push it: git push origin {name})")
    # 3. the pin-bump commit
    changed = [p for p, t in docs.items() if write_if_changed(p, repin(t, r, comment))]
    if write_if_changed(changelog, note_release(changelog.read_text(encoding="utf-8"), r, comment)):
        changed.append(changelog)
    bump = commit(f"release: the docs pin {r[:7]} ({comment}), verify-pr {ver}", changed)
    print(f"release: commit {bump[:12]}: {len(changed)} file(s) pin {r[:12]} # {comment}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/release.md's release commits.")
    parser.add_argument("--tag", action="store_true", help="tag R vX.Y.Z (pyproject's version)")
    args = parser.parse_args(argv)
    try:
        return release(args.tag)
    except Refused as refused:
        print(f"release: refused: {refused}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
