"""``verify-pr compare``: --base/--head take branches, tags and short ids (resolved by the
hardened git, full ids on stderr), a dirty work tree is named on stderr, and run's and
compare's shared flags are declared once. Real git repositories; the comparison is stopped
where it would start."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.git_helpers import commit, git, init_repo
from verify_pr.verify import cli, compare_run
from verify_pr.verify.settings import CompareSettings


class Started(Exception):
    """Raised by the stand-in for run_compare: everything before the sandbox passed."""


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[compare_run.CompareRequest]:
    requests: list[compare_run.CompareRequest] = []

    def stop(request: compare_run.CompareRequest, _settings: CompareSettings) -> None:
        requests.append(request)
        raise Started

    monkeypatch.setattr(compare_run, "run_compare", stop)
    return requests


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    path = init_repo(tmp_path / "src")
    base = commit(path, {"m.py": "x = 1\n", "test_m.py": "def test_m():\n    pass\n"})
    git(path, "tag", "v1")
    git(path, "checkout", "--quiet", "-b", "fix")
    head = commit(path, {"m.py": "x = 2\n"})
    git(path, "checkout", "--quiet", "main")
    return path, base, head


def argv(repo: Path, tmp_path: Path, base: str, head: str) -> list[str]:
    args = ["compare", "--git", str(repo), "--base", base, "--head", head, "--image", "img:1"]
    return [*args, "--out", str(tmp_path / "out")]


def started(args: list[str]) -> None:
    with pytest.raises(Started):
        cli._main(args)


@pytest.mark.parametrize(
    ("base", "head"), [("main", "fix"), ("v1", "refs/heads/fix"), ("SHORT_BASE", "fix~0")]
)
def test_names_and_short_ids_resolve_to_full_ids_on_stderr(
    base: str,
    head: str,
    repo: tuple[Path, str, str],
    tmp_path: Path,
    seen: list[compare_run.CompareRequest],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, base_sha, head_sha = repo
    base = base.replace("SHORT_BASE", base_sha[:7])
    started(argv(path, tmp_path, base, head))
    assert (seen[0].base_sha, seen[0].head_sha) == (base_sha, head_sha)
    err = capsys.readouterr().err
    assert f"base: {base} = {base_sha}\n" in err
    assert f"head: {head} = {head_sha}\n" in err
    assert "warning" not in err  # a clean work tree: nothing to say


def test_full_ids_are_used_as_given_and_not_echoed(
    repo: tuple[Path, str, str],
    tmp_path: Path,
    seen: list[compare_run.CompareRequest],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, base_sha, head_sha = repo
    started(argv(path, tmp_path, base_sha, head_sha))
    assert (seen[0].base_sha, seen[0].head_sha) == (base_sha, head_sha)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("base", "why"),
    [
        ("--base=-x", "--base must be a branch, a tag"),
        ("--base=main..fix", "--base must be a branch, a tag"),
        ("--base=nope", "--base 'nope' names no commit"),
        ("--base=fix", "same commit"),
    ],
)
def test_bad_names_are_refused_before_any_run(
    base: str,
    why: str,
    repo: tuple[Path, str, str],
    tmp_path: Path,
    seen: list[compare_run.CompareRequest],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, _, _ = repo
    args = ["compare", "--git", str(path), base, "--head", "fix", "--image", "img:1"]
    assert cli.main([*args, "--out", str(tmp_path / "out")]) == cli.EXIT_USAGE
    assert why in capsys.readouterr().err
    assert seen == []


def test_uncommitted_changes_are_named_on_stderr(
    repo: tuple[Path, str, str],
    tmp_path: Path,
    seen: list[compare_run.CompareRequest],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, base_sha, head_sha = repo
    (path / "m.py").write_text("x = 3\n")
    (path / "test_new.py").write_text("def test_new():\n    pass\n")
    started(argv(path, tmp_path, base_sha, "fix"))
    err = capsys.readouterr().err
    assert "verify-pr: warning: the --git work tree has uncommitted changes (1 changed, " in err
    assert "1 untracked: m.py, test_new.py); compare reads commits only" in err
    assert seen[0].head_sha == head_sha  # the comparison itself goes on, of the commits


def test_a_status_that_cannot_be_read_is_said_not_fatal(
    tmp_path: Path, seen: list[compare_run.CompareRequest], capsys: pytest.CaptureFixture[str]
) -> None:
    fake = tmp_path / "repo"
    (fake / ".git").mkdir(parents=True)  # no object store
    started(argv(fake, tmp_path, "a" * 40, "b" * 40))
    assert "work tree's status could not be read: no object store" in capsys.readouterr().err


# --- one declaration of the shared flags ------------------------------------------------------


def _actions(parser: argparse.ArgumentParser, mode: str) -> dict[str, argparse.Action]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a for a in sub.choices[mode]._actions}


def test_run_and_compare_share_one_declaration_of_their_common_flags() -> None:
    parser = cli.build_parser()
    run, cmp = _actions(parser, "run"), _actions(parser, "compare")
    common = set(run) & set(cmp) - {"help"}
    assert common == {
        "image",
        "runner",
        "out",
        "command",
        "report_format",
        "timeout",
        "max_output",
        "cpus",
        "memory",
    }
    for dest in common:
        assert run[dest] is cmp[dest], dest  # the parent's action object, not a copy
    assert set(run) - common == {"help", "repo", "diff_base"}
    assert set(cmp) - common == {
        "help",
        "git",
        "base",
        "head",
        "event",
        "strict_harness",
        "flake_runs",
    }


@pytest.mark.parametrize("mode", ["run", "compare"])
@pytest.mark.parametrize(
    ("extra", "why"),
    [
        (["--command", "x {report}"], "go together"),
        (["--command", "x {report}", "--report-format", "junit", "--runner", "jest"], "exclude"),
        (["--timeout", "0"], "--timeout"),
        (["--max-output", "0"], "--max-output"),
        (["--cpus", "100"], "cpus"),
        (["--image", "-x"], "--image"),
        (["--tim", "5"], "unrecognized"),
    ],
)
def test_shared_checks_refuse_alike_in_both_modes(
    mode: str,
    extra: list[str],
    why: str,
    repo: tuple[Path, str, str],
    tmp_path: Path,
    seen: list[compare_run.CompareRequest],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, base_sha, head_sha = repo
    out = str(tmp_path / "out")
    if mode == "run":
        args = ["run", "--repo", str(path), "--out", out, "--image", "img:1"]
    else:
        args = argv(path, tmp_path, base_sha, head_sha)
    assert cli.main([*args, *extra]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith("verify-pr: refused: ") and why in err, err
    assert seen == []
