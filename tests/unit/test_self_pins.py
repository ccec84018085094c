"""Every place verify-pr names itself by commit names a commit of this history holding the file.

A copy-pasted ``uses: verify-pr/verify-pr@<sha>`` that names a commit without ``action.yml``
breaks every user's workflow, and the act tests cannot see it (they map any sha to the working
tree). So this reads every self-reference from the tracked files and asks git: the commit is an
ancestor of HEAD (in the history, so a fresh clone has it), it holds the file the reference uses,
a reusable workflow's own self-references hold at that commit too (its callers run them), and
the comment after the sha says something true (a tag that points at it, or ``main`` and its
date). docs/release.md says how a release moves the pins.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SELF = "verify-pr/verify-pr"
# uses: verify-pr/verify-pr[/sub]@<sha> [# comment]
_USES = re.compile(r"verify-pr/verify-pr(?P<sub>/[\w./-]+)?@(?P<sha>[0-9a-f]{40})(?P<rest>.*)$")
# actions/checkout of verify-pr itself: `repository: verify-pr/verify-pr`, then `ref: <sha>`
_CHECKOUT = re.compile(
    r"^(?P<indent>\s*)repository:\s*verify-pr/verify-pr\s*$\n"
    r"(?:(?P=indent)\w[\w-]*:.*\n)*?"
    r"(?P=indent)ref:\s*(?P<sha>[0-9a-f]{40})(?P<rest>.*)$",
    re.MULTILINE,
)
_COMMENT = re.compile(r"^\s*#\s*(?P<text>\S.*?)\s*$")
_MAIN_DATE = re.compile(r"main (\d{4}-\d{2}-\d{2})")
_TAG = re.compile(r"v\d+\.\d+\.\d+")
SCANNED_SUFFIXES = (".md", ".yml", ".yaml")
MAX_DEPTH = 4
# the commit every pin named until 2026-12-02: it has no action.yml (issue 23)
NO_ACTION = "90fc5ac5e09224887e4f11501951450ffc4d3092"


@dataclass(frozen=True)
class Pin:
    """One self-reference: where it is written, the commit it names and the file it uses."""

    where: str
    sha: str
    path: str
    comment: str


def git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", "-C", str(ROOT), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def used_file(sub: str | None) -> str:
    """``verify-pr/verify-pr`` uses action.yml; ``/publish`` publish/action.yml; a reusable
    workflow ``/.github/workflows/x.yml`` names the workflow file itself."""
    if not sub:
        return "action.yml"
    inner = sub.strip("/")
    return inner if inner.endswith((".yml", ".yaml")) else f"{inner}/action.yml"


def comment_of(rest: str) -> str:
    found = _COMMENT.match(rest)
    return found.group("text") if found else ""


def pins_in(text: str, where: str) -> list[Pin]:
    pins = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in _USES.finditer(line):
            path = used_file(m.group("sub"))
            pins.append(Pin(f"{where}:{number}", m.group("sha"), path, comment_of(m.group("rest"))))
    for m in _CHECKOUT.finditer(text):
        number = text.count("\n", 0, m.start("sha")) + 1
        # the checked-out folder is used as a local action: it needs action.yml
        pins.append(Pin(f"{where}:{number}", m.group("sha"), "action.yml", comment_of(m["rest"])))
    return pins


def tracked_pins() -> list[Pin]:
    listed = git("ls-files", "-z")
    assert listed.returncode == 0, f"not a git checkout, cannot check the pins: {listed.stderr}"
    pins = []
    for name in listed.stdout.split("\0"):
        if name.endswith(SCANNED_SUFFIXES) and not name.startswith("tests/"):
            pins += pins_in((ROOT / name).read_text(encoding="utf-8"), name)
    return pins


def problems(pin: Pin, depth: int = 0) -> list[str]:
    """What is wrong with one pin, following a reusable workflow into the commit it names."""
    named = f"{pin.where}: {SELF}@{pin.sha} ({pin.path})"
    if git("cat-file", "-e", f"{pin.sha}^{{commit}}").returncode != 0:
        return [f"{named}: commit {pin.sha} is not in this repository (a shallow clone?)"]
    if git("merge-base", "--is-ancestor", pin.sha, "HEAD").returncode != 0:
        return [f"{named}: commit {pin.sha} is not in HEAD's history"]
    if git("cat-file", "-e", f"{pin.sha}:{pin.path}").returncode != 0:
        return [f"{named}: {pin.path} does not exist at commit {pin.sha}"]
    found = comment_problems(pin, named)
    if pin.path.startswith(".github/workflows/") and depth < MAX_DEPTH:
        # a caller of the reusable workflow runs the file as it is at that commit
        text = git("show", f"{pin.sha}:{pin.path}").stdout
        for inner in pins_in(text, f"{pin.where} -> {pin.sha[:12]}:{pin.path}"):
            found += problems(inner, depth + 1)
    return found


def comment_problems(pin: Pin, named: str) -> list[str]:
    """The comment names a tag that points at the commit, or ``main`` and its commit date."""
    if _TAG.fullmatch(pin.comment):
        tagged = git("rev-parse", "--verify", "--quiet", f"refs/tags/{pin.comment}^{{commit}}")
        if tagged.stdout.strip() != pin.sha:
            return [f"{named}: the comment names tag {pin.comment}, which does not point at it"]
        return []
    date = _MAIN_DATE.fullmatch(pin.comment)
    if date is None:
        return [f"{named}: the comment {pin.comment!r} is neither 'vX.Y.Z' nor 'main YYYY-MM-DD'"]
    day = commit_day(pin.sha)
    if day != date.group(1):
        return [f"{named}: the comment says {date.group(1)}, the commit is of {day}"]
    return []


def commit_day(sha: str) -> str:
    """The commit's committer date, in UTC."""
    stamp = git("show", "-s", "--format=%ct", sha).stdout.strip()
    return datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%d")


def test_every_self_reference_names_a_commit_holding_its_file() -> None:
    pins = tracked_pins()
    # the forms this test reads: a change of form must not make it check nothing
    assert {p.path for p in pins} >= {
        "action.yml",
        "publish/action.yml",
        ".github/workflows/verify.yml",
        ".github/workflows/publish.yml",
    }, pins
    assert any(p.where.startswith(".github/workflows/verify.yml") for p in pins)
    found = [problem for pin in pins for problem in problems(pin)]
    assert not found, "\n".join(found)


def test_the_readme_and_docs_pin_one_commit() -> None:
    """A user copies from several places: they all name the same commit."""
    shas = {p.sha for p in tracked_pins() if not p.where.startswith(".github/")}
    assert len(shas) == 1, shas


# --- the checker itself, on references it must refuse ------------------------------------------


@pytest.mark.parametrize(
    ("sub", "path"),
    [
        ("", "action.yml"),
        ("/publish", "publish/action.yml"),
        ("/.github/workflows/verify.yml", ".github/workflows/verify.yml"),
    ],
)
def test_reference_forms(sub: str, path: str) -> None:
    sha = "a" * 40
    (pin,) = pins_in(f"      - uses: {SELF}{sub}@{sha} # main 2026-12-02\n", "f.yml")
    assert (pin.sha, pin.path, pin.comment, pin.where) == (sha, path, "main 2026-12-02", "f.yml:1")


def test_checkout_form() -> None:
    text = (
        "      - uses: actions/checkout@" + "b" * 40 + " # v4.2.2\n"
        "        with:\n"
        "          repository: verify-pr/verify-pr\n"
        "          path: .verify-pr\n"
        "          ref: " + "c" * 40 + " # v1.2.3\n"
    )
    (pin,) = pins_in(text, "w.yml")
    assert (pin.sha, pin.path, pin.comment, pin.where) == (
        "c" * 40,
        "action.yml",
        "v1.2.3",
        "w.yml:5",
    )


def test_a_commit_without_the_file_is_refused_by_name() -> None:
    assert git("cat-file", "-e", f"{NO_ACTION}:action.yml").returncode != 0
    (got,) = problems(Pin("README.md:50", NO_ACTION, "action.yml", "main 2026-12-01"))
    assert got == (
        f"README.md:50: {SELF}@{NO_ACTION} (action.yml): "
        f"action.yml does not exist at commit {NO_ACTION}"
    )


def test_a_missing_commit_is_refused_by_name() -> None:
    (got,) = problems(Pin("x.md:1", "0123456789" * 4, "action.yml", "main 2026-12-02"))
    assert got.startswith(f"x.md:1: {SELF}@{'0123456789' * 4} (action.yml): commit ")
    assert "is not in this repository" in got


def test_untrue_comments_are_refused() -> None:
    sha = git("rev-parse", "HEAD").stdout.strip()
    assert git("cat-file", "-e", f"{sha}:action.yml").returncode == 0
    assert problems(Pin("x", sha, "action.yml", f"main {commit_day(sha)}")) == []  # control
    assert "does not point at it" in problems(Pin("x", sha, "action.yml", "v999.0.0"))[0]
    assert "the commit is of" in problems(Pin("x", sha, "action.yml", "main 1999-01-01"))[0]
    assert "neither" in problems(Pin("x", sha, "action.yml", "latest"))[0]
    assert "neither" in problems(Pin("x", sha, "action.yml", ""))[0]


# --- the pin runs HEAD's code: what CI tests is what a user runs (issue 35) ---------------------


def _release_script() -> ModuleType:
    """scripts/release.py, which owns the list of shipped paths (what a caller of
    verify-pr@<sha> runs): the check and the release read one list."""
    spec = importlib.util.spec_from_file_location("release", ROOT / "scripts" / "release.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_RELEASE_SCRIPT = _release_script()
CODE_PATHS: tuple[str, ...] = _RELEASE_SCRIPT.CODE_PATHS
REUSABLE: tuple[str, ...] = _RELEASE_SCRIPT.REUSABLE
RELEASE = "run scripts/release.sh (docs/release.md)"
SHOWN = 12


def shipped_paths(pin: Pin) -> tuple[str, ...]:
    """A docs pin runs the actions and the reusable workflows; the workflows' own pin of P runs
    every shipped path but the two workflow files (R changes exactly those)."""
    return CODE_PATHS if pin.where.startswith(".github/") else CODE_PATHS + REUSABLE


def stale_files(sha: str, paths: tuple[str, ...]) -> list[str]:
    """The shipped files that differ between the pinned commit and HEAD."""
    done = git("diff", "--name-only", sha, "HEAD", "--", *paths)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def stale_problems(pins: list[Pin]) -> list[str]:
    """One line per pinned commit and set of shipped paths: where it is pinned, the files that
    differ from HEAD's (the first ``SHOWN``) and the fix."""
    where: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for pin in pins:
        where.setdefault((pin.sha, shipped_paths(pin)), []).append(pin.where)
    found = []
    for (sha, paths), places in where.items():
        files = stale_files(sha, paths)
        if files:
            shown = ", ".join(files[:SHOWN]) + (
                f" and {len(files) - SHOWN} more" if len(files) > SHOWN else ""
            )
            found.append(
                f"{', '.join(places)}: {SELF}@{sha[:12]} runs other code than HEAD: "
                f"{len(files)} file(s) differ ({shown}); {RELEASE}"
            )
    return found


def test_every_pin_runs_the_code_of_head() -> None:
    """Any change to shipped code needs a release before it lands (scripts/release.sh)."""
    pins = tracked_pins()
    assert any(p.where.startswith(".github/workflows/") for p in pins)
    found = stale_problems(pins)
    assert not found, "\n".join([f"the pins name old code: {RELEASE}", *found])


def test_a_stale_pin_is_named_with_its_files_and_the_fix() -> None:
    """Positive control: the first commit the docs pinned differs from HEAD in shipped code."""
    first = "3fe1cd29ff1832012a34b131891f9dd0dd666bb5"
    assert git("cat-file", "-e", f"{first}^{{commit}}").returncode == 0
    (got,) = stale_problems([Pin("README.md:9", first, "action.yml", "main 2026-12-02")])
    assert got.startswith(f"README.md:9: {SELF}@{first[:12]} runs other code than HEAD: ")
    assert " more); " in got  # the list is cut, the count is not
    assert "action.yml" in got and "src/verify_pr/" in got and got.endswith(RELEASE)
    # the workflows' pin is not asked about the workflow files themselves
    wf = Pin(".github/workflows/verify.yml:9", first, "action.yml", "")
    assert not set(shipped_paths(wf)) & set(REUSABLE)


def project_version() -> str:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def test_the_changelog_top_entry_is_the_version_the_docs_pin() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    top = re.search(r"^## (\d+\.\d+\.\d+)\b.*$", text, re.MULTILINE)
    assert top is not None, "CHANGELOG.md has no '## X.Y.Z' entry"
    assert top.group(1) == project_version(), "CHANGELOG.md's top entry is not pyproject's version"
    from verify_pr import __version__

    assert __version__ == project_version()
    entry = text[top.end() :].split("\n## ", 1)[0]
    (docs_sha,) = {p.sha for p in tracked_pins() if not p.where.startswith(".github/")}
    assert f"Released as `{docs_sha}`" in entry, f"CHANGELOG.md's top entry: {RELEASE}"
