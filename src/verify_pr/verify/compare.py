"""Base against head: which tests the PR turns green, and whether that proves anything.

Pure parts (classify, harness_files, decide) take data and return data; ``run_compare`` is
the only part that exports trees and launches sandboxes.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from verify_pr.errors import InputRefused
from verify_pr.models.compare import (
    MAX_COMPARE_REASONS,
    MAX_HARNESS_FILES,
    CompareResult,
    CompareVerdict,
    TestTransition,
    Transition,
    TransitionCounts,
)
from verify_pr.models.report import RedFlag, TestReport, TestStatus
from verify_pr.models.sandbox import RunStatus
from verify_pr.models.verdict import REASON_MAX_CHARS, Verdict
from verify_pr.verify.suite import SuiteOutcome

_FAILING = (TestStatus.FAILED, TestStatus.ERROR)

# Files that decide how the tests run or how their results are reported (matched on the
# file name at any depth, or on the first path component for module shadows).
HARNESS_NAMES = (
    "conftest.py",
    "pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    "sitecustomize.py",
    "usercustomize.py",
    "*.pth",
    "package.json",
    "jest.config.*",
    "jest.setup.*",
    "jest-setup.*",
    "vitest.config.*",
    "vitest.workspace.*",
    "vitest.setup.*",
    "vite.config.*",
    "setupTests.*",
    "test-setup.*",
    "bunfig.toml",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "bun.lock",
    "bun.lockb",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "Pipfile.lock",
)
# A top-level module of these names shadows the installed runner under `python3 -m pytest`.
HARNESS_TOP_LEVEL = ("pytest.py", "pytest", "_pytest", "pluggy", "pluggy.py", "py.py", "iniconfig")
HARNESS_DIRS = ("node_modules", ".yarn", ".pnp.cjs", ".pnp.js")


def is_harness_path(path: str) -> bool:
    parts = PurePosixPath(path).parts
    if not parts:
        return False
    if parts[0] in HARNESS_TOP_LEVEL or any(part in HARNESS_DIRS for part in parts):
        return True
    return any(fnmatch.fnmatchcase(parts[-1], pattern) for pattern in HARNESS_NAMES)


def harness_files(changed: Iterable[str]) -> list[str]:
    return sorted({path for path in changed if is_harness_path(path)})


_RANK = {TestStatus.SKIPPED: 0, TestStatus.PASSED: 1, TestStatus.FAILED: 2, TestStatus.ERROR: 3}


def classify_one(base: TestStatus | None, head: TestStatus | None) -> Transition:
    if base is None and head is None:
        raise ValueError("a test must exist on at least one side")
    if base is None:
        return Transition.ADDED
    if head is None:
        return Transition.REMOVED
    if TestStatus.SKIPPED in (base, head):
        return Transition.SKIPPED
    base_failed, head_failed = base in _FAILING, head in _FAILING
    if base_failed:
        return Transition.FAIL_TO_FAIL if head_failed else Transition.FAIL_TO_PASS
    return Transition.PASS_TO_FAIL if head_failed else Transition.PASS_TO_PASS


def classify(
    base: Mapping[str, TestStatus], head: Mapping[str, TestStatus]
) -> list[TestTransition]:
    """Pair by id (worst status per id already taken), sorted by id."""
    return [
        TestTransition(
            id=test_id,
            base=base.get(test_id),
            head=head.get(test_id),
            transition=classify_one(base.get(test_id), head.get(test_id)),
        )
        for test_id in sorted(set(base) | set(head))
    ]


def count(transitions: Sequence[TestTransition]) -> TransitionCounts:
    tally = dict.fromkeys(Transition, 0)
    for item in transitions:
        tally[item.transition] += 1
    return TransitionCounts(**{kind.value.lower(): n for kind, n in tally.items()})


def worst(report: TestReport | None) -> dict[str, TestStatus]:
    return report.worst_by_id() if report is not None else {}


@dataclass(frozen=True)
class Side:
    """What the verdict needs from one run."""

    name: str  # "base" or "head"
    outcome: SuiteOutcome

    def blocked(self) -> str | None:
        result = self.outcome.verdict.sandbox
        if self.outcome.verdict.verdict is Verdict.BLOCKED or result.status is RunStatus.BLOCKED:
            return f"the {self.name} sandbox was blocked: {result.detail or 'no detail'}"
        return None

    def distrust(self) -> list[str]:
        """Why this run cannot be used as evidence (empty when it can)."""
        result = self.outcome.verdict.sandbox
        report = self.outcome.report
        if result.status is RunStatus.TIMEOUT:
            return [f"the {self.name} run timed out after {result.timeout_s} s"]
        if result.status is not RunStatus.COMPLETED:
            return [f"the {self.name} run did not complete: {result.detail or result.status}"]
        if report is None:
            why = "; ".join(self.outcome.verdict.reasons[:1]) or "no report"
            return [f"the {self.name} run has no usable report: {why}"]
        reasons = []
        flags = [f for f in report.red_flags if f is not RedFlag.NO_TESTCASES]
        if flags:
            shown = ", ".join(str(f) for f in flags)
            reasons.append(f"the {self.name} report shows red flags: {shown}")
        statuses = report.worst_by_id().values()
        executed = sum(1 for s in statuses if s is not TestStatus.SKIPPED)
        failed = any(s in _FAILING for s in statuses)
        if executed == 0:
            reasons.append(f"the {self.name} run executed zero tests")
        if failed and result.exit_code == 0:
            reasons.append(f"the {self.name} runner exited 0 despite failing tests")
        if not failed and result.exit_code != 0:
            reasons.append(
                f"the {self.name} runner exited {result.exit_code} with a clean report: "
                "exit code and report disagree"
            )
        return reasons


@dataclass(frozen=True)
class Decision:
    verdict: CompareVerdict
    reasons: list[str] = field(default_factory=list)


def decide(
    base: Side,
    head: Side,
    transitions: Sequence[TestTransition],
    harness_changed: Sequence[str],
    strict_harness: bool,
) -> Decision:
    """Every rule is checked and every failing rule gives a reason."""
    blocked = [why for why in (base.blocked(), head.blocked()) if why]
    if blocked:
        return Decision(CompareVerdict.BLOCKED, blocked)
    reasons = base.distrust() + head.distrust()
    if harness_changed and not strict_harness:
        shown = ", ".join(harness_changed[:5]) + (" ..." if len(harness_changed) > 5 else "")
        reasons.append(
            f"the PR changes {len(harness_changed)} file(s) that judge it ({shown}): "
            "rerun with --strict-harness to run head's tests with base's harness"
        )
    new_tamper = [s for s in head.outcome.tamper if s not in base.outcome.tamper]
    if new_tamper:
        reasons.append(f"head adds harness tamper signals: {'; '.join(new_tamper)[:300]}")
    by_kind: dict[Transition, list[str]] = {kind: [] for kind in Transition}
    for item in transitions:
        by_kind[item.transition].append(item.id)
    if not transitions:
        reasons.append("zero tests on both sides: nothing to compare")
    elif not by_kind[Transition.FAIL_TO_PASS]:
        reasons.append(
            "no test fails on base and passes on head: the suite does not show what the PR fixes"
        )
    if by_kind[Transition.PASS_TO_FAIL]:
        ids = by_kind[Transition.PASS_TO_FAIL]
        reasons.append(f"{len(ids)} test(s) pass on base and fail on head, e.g. {ids[0][:200]}")
    if by_kind[Transition.REMOVED]:
        ids = by_kind[Transition.REMOVED]
        reasons.append(f"{len(ids)} test(s) of base are gone on head, e.g. {ids[0][:200]}")
    skipped_on_head = [
        t.id
        for t in transitions
        if t.transition is Transition.SKIPPED
        and t.head is TestStatus.SKIPPED
        and t.base is not TestStatus.SKIPPED
    ]
    if skipped_on_head:
        reasons.append(
            f"{len(skipped_on_head)} test(s) of base are skipped on head, "
            f"e.g. {skipped_on_head[0][:200]}"
        )
    if reasons:
        return Decision(CompareVerdict.NOT_PROVEN, reasons)
    n = len(by_kind[Transition.FAIL_TO_PASS])
    return Decision(
        CompareVerdict.VERIFIED,
        [
            f"{n} test(s) fail on base and pass on head, none regressed, none removed or "
            "skipped; both runs completed with a clean report"
        ],
    )


def build_result(
    base_sha: str,
    head_sha: str,
    base: SuiteOutcome,
    head: SuiteOutcome,
    harness_changed: Sequence[str],
    strict_harness: bool,
) -> CompareResult:
    transitions = classify(worst(base.report), worst(head.report))
    decision = decide(
        Side("base", base), Side("head", head), transitions, harness_changed, strict_harness
    )
    reasons = tuple(r[:REASON_MAX_CHARS] for r in decision.reasons[:MAX_COMPARE_REASONS])
    return CompareResult(
        verdict=decision.verdict,
        reasons=reasons,
        base_sha=base_sha,
        head_sha=head_sha,
        strict_harness=strict_harness,
        harness_files_changed=tuple(harness_changed[:MAX_HARNESS_FILES]),
        counts=count(transitions),
        transitions=tuple(transitions),
        base=base.verdict,
        head=head.verdict,
    )


def overlay_harness(base_tree: Path, head_tree: Path, paths: Iterable[str]) -> None:
    """Strict mode: base's version of every harness file in head's tree; head-only ones go.

    Both trees are our own fresh exports; no path is followed through a link (lstat only,
    and every parent of a target must be a real directory inside the tree).
    """
    for path in paths:
        rel = PurePosixPath(path)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            continue
        src, dst = base_tree.joinpath(*rel.parts), head_tree.joinpath(*rel.parts)
        if not _parents_are_dirs(head_tree, rel):
            continue  # a file or link stands where a parent should: the path cannot exist
        _remove(dst)
        if not _parents_are_dirs(base_tree, rel):
            continue
        try:
            st = os.lstat(src)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode):
            _make_parents(head_tree, rel)
            shutil.copy2(src, dst, follow_symlinks=False)


def _parents_are_dirs(root: Path, rel: PurePosixPath) -> bool:
    current = root
    for part in rel.parts[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return True  # created on demand
        if not stat.S_ISDIR(mode):
            return False
    return True


def _make_parents(root: Path, rel: PurePosixPath) -> None:
    current = root
    for part in rel.parts[:-1]:
        current = current / part
        if not os.path.lexists(current):
            current.mkdir(mode=0o755)
            os.chmod(current, 0o755)  # noqa: S103 (uid 65534 must read the tree)


def _remove(path: Path) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        shutil.rmtree(path)
    else:
        path.unlink()


@dataclass(frozen=True)
class CompareRequest:
    git_dir: Path
    base_sha: str
    head_sha: str
    image: str
    runner: str = "auto"
    timeout_s: int = 600
    max_output: int = 1 << 20
    strict_harness: bool = False


@dataclass(frozen=True)
class CompareRun:
    result: CompareResult
    base: SuiteOutcome
    head: SuiteOutcome


def run_compare(request: CompareRequest) -> CompareRun:
    """Export both trees with hardened git, run each in its own sandbox, compare."""
    import tempfile

    from verify_pr.git import HardenedGit, check_commit, decode_path
    from verify_pr.sandbox.guard import check_tree
    from verify_pr.verify.suite import plan_detected, run_suite

    base_sha = check_commit(request.base_sha, "--base")
    head_sha = check_commit(request.head_sha, "--head")
    if len(base_sha) != len(head_sha):
        raise InputRefused("--base and --head use different hash lengths")
    work = Path(tempfile.mkdtemp(prefix="verify-pr-compare-"))
    try:
        fmt = "sha256" if len(base_sha) == 64 else "sha1"
        with HardenedGit(request.git_dir, object_format=fmt) as git:
            changed = [decode_path(p) for p in git.changed_paths(base_sha, head_sha)]
            base_tree = git.export(base_sha, work, "base")
            head_tree = git.export(head_sha, work, "head")
        harness = harness_files(changed)
        if request.strict_harness:
            overlay_harness(base_tree, head_tree, harness)
        check_tree(base_tree)
        check_tree(head_tree)
        # The runner is detected on base: the PR cannot choose what judges it.
        base_plan = plan_detected(base_tree, request.runner)
        head_plan = plan_detected(base_tree, base_plan.runner)
        base = run_suite(base_tree, base_plan, request.image, request.timeout_s, request.max_output)
        head = run_suite(head_tree, head_plan, request.image, request.timeout_s, request.max_output)
        result = build_result(base_sha, head_sha, base, head, harness, request.strict_harness)
        return CompareRun(result, base, head)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def summary_markdown(result: CompareResult) -> str:
    """Ten seconds for a maintainer: verdict, counts, what flipped, why not verified."""
    from verify_pr.publish.render import escape_inline, inline_code

    title = {
        CompareVerdict.VERIFIED: "VERIFIED: the PR turns failing tests green, and breaks none",
        CompareVerdict.NOT_PROVEN: "NOT PROVEN: base against head does not show the PR works",
        CompareVerdict.BLOCKED: "BLOCKED: a sandbox could not run (this says nothing about the PR)",
    }[result.verdict]
    c = result.counts
    strict = ", strict harness (head ran with base's harness files)"
    lines = [
        f"## verify-pr compare: {title}",
        "",
        f"base {inline_code(result.base_sha[:12])} ({result.base.verdict}) against head "
        f"{inline_code(result.head_sha[:12])} ({result.head.verdict})"
        + (strict if result.strict_harness else ""),
        "",
        "| FAIL→PASS | PASS→FAIL | PASS→PASS | FAIL→FAIL | added | removed | skipped |",
        "|---|---|---|---|---|---|---|",
        f"| {c.fail_to_pass} | {c.pass_to_fail} | {c.pass_to_pass} | {c.fail_to_fail} "
        f"| {c.added} | {c.removed} | {c.skipped} |",
        "",
    ]
    if result.verdict is not CompareVerdict.VERIFIED:
        lines.append("**Why:**")
    lines += [f"- {escape_inline(reason)}" for reason in result.reasons]
    lines.append("")
    shown = (Transition.FAIL_TO_PASS, Transition.PASS_TO_FAIL, Transition.REMOVED)
    for kind in shown:
        ids = [t.id for t in result.transitions if t.transition is kind]
        if ids:
            lines.append(f"**{kind.value}** ({len(ids)}):")
            lines += [f"- {inline_code(i[:300])}" for i in ids[:10]]
            if len(ids) > 10:
                lines.append(f"- … and {len(ids) - 10} more")
            lines.append("")
    if result.harness_files_changed:
        files = result.harness_files_changed
        lines.append(f"**Harness files changed by the PR** ({len(files)}):")
        lines += [f"- {inline_code(f[:300])}" for f in files[:10]]
        lines.append("")
    return "\n".join(lines)
