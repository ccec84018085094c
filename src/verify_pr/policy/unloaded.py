"""Head's test files that could not load: forgiven only when they never loaded before the PR.

``verify.unloaded`` explains the rule. ``why_not`` is its judgement of one file, asked by the
verifier of its runs (the runner's own load error texts) and by the publish job of the
artifact's embedded runs (``gaps``: the testcases' messages), so both forgive the same files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from verify_pr.models.compare import MAX_LISTED_PATHS, CompareResult, CompareVerdict
from verify_pr.models.loadfail import load_failed_files, names_path


def why_not(
    file: str,
    text: str,
    own: Mapping[str, str] | None,
    was: Mapping[str, str] | None,
    changed: Sequence[str] | None,
    own_missing: bool,
) -> str | None:
    """Why head's load failure of ``file`` (error ``text``) cannot be shown to predate the PR,
    or None when it does: ``own`` and ``was`` map the files base's own run and the before run
    could not load to their error texts (None: no report to match), ``changed`` every path the
    PR changes (None: not known), ``own_missing``: base's own run did not run."""
    if changed is None:
        return "the PR's changed paths are not known"
    if file in changed:
        return "the PR changes it"
    if own_missing:
        return "base's own run did not run"
    if own is None:
        return "base's own run has no report whose load failures can be matched"
    if file not in own:
        return "it loads in base's own run (base's code and tests)"
    if own[file] != text:
        return "it fails to load on head with another error than in base's own run"
    if was is None or file not in was:
        return "it loads on base's code with the PR's tests"
    if was[file] != text:
        return "it fails to load on head with another error than on base's code with the PR's tests"
    named = names_path(text, changed)
    if named is not None:
        return f"its load error names {named[:200]}, a path the PR changes"
    return None


def gaps(result: CompareResult) -> list[str]:
    """Head's load failures the artifact's own runs do not show to predate the PR (the
    changed paths are the comparison's listing, whole)."""
    on_head = load_failed_files(result.head.testcases)
    if on_head == {}:
        return []
    if on_head is None:
        return ["a test file that failed to load on head has no path"]
    if result.base_own is None:
        return [f"head could not load {_files(on_head)} and base's own run is missing"]
    if max(len(result.test_paths), len(result.code_paths)) >= MAX_LISTED_PATHS:
        return [f"head could not load {_files(on_head)} and the changed paths are not all listed"]
    own = load_failed_files(result.base_own.testcases)
    was = load_failed_files(result.before.testcases) or {}
    changed = [*result.test_paths, *result.code_paths]
    bad = {
        f: why
        for f, text in on_head.items()
        if (why := why_not(f, text, own, was, changed, own_missing=False)) is not None
    }
    if bad:
        return [
            f"head could not load {_files(bad)}, not shown to fail alike in base's own run "
            f"and the base run, untouched by the PR ({next(iter(bad.values()))})"
        ]
    return []


def forgiven(result: CompareResult | None) -> tuple[str, ...]:
    """The head test files a VERIFIED comparison forgave for not loading (the publish job
    checks them against GitHub's listing of the PR's files)."""
    if result is None or result.verdict is not CompareVerdict.VERIFIED:
        return ()
    return tuple(sorted(load_failed_files(result.head.testcases) or ()))


def _files(files: Iterable[str]) -> str:
    names = sorted(files)
    return ", ".join(n[:150] for n in names[:3]) + (
        f" and {len(names) - 3} more" if len(names) > 3 else ""
    )
