"""One exit-code enum per entry point: one number means one thing everywhere, a crash has its
own code in every entry point, never a verdict's, and the docs' tables say what the enums say."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from enum import IntEnum
from pathlib import Path

import pytest

from verify_pr import action, errors, exit_codes
from verify_pr.action import step
from verify_pr.errors import (
    Cancelled,
    Category,
    ConfigError,
    Crashed,
    GitError,
    GitHubApiError,
    InputRefused,
    ReportError,
    SandboxBlocked,
    VerifyPrError,
)
from verify_pr.exit_codes import (
    ENTRY_POINTS,
    CompareExit,
    PublishExit,
    RunExit,
    SandboxExit,
    StepExit,
)
from verify_pr.models.compare import CompareVerdict
from verify_pr.models.verdict import Verdict
from verify_pr.publish import main as publish_main
from verify_pr.sandbox import cli as sandbox_cli
from verify_pr.verify import cli as verify_cli

ROOT = Path(__file__).resolve().parents[2]
# docs/contract.md holds the table of every entry point (README links to it)
DOCS = (ROOT / "docs" / "contract.md", ROOT / "docs" / "action.md")
ENUMS: tuple[type[IntEnum], ...] = tuple(ENTRY_POINTS.values())


def _raise(exc: BaseException) -> Callable[..., int]:
    def boom(*_args: object, **_kwargs: object) -> int:
        raise exc

    return boom


# --- the enums ------------------------------------------------------------------------------


def test_one_number_means_one_thing_in_every_entry_point() -> None:
    """Past 0 (each entry point's success), a number has one name wherever it is used, and a
    name one number."""
    names: dict[int, set[str]] = {}
    numbers: dict[str, set[int]] = {}
    for enum in ENUMS:
        assert min(enum) == 0, enum
        for member in enum:
            if member != 0:
                names.setdefault(member.value, set()).add(member.name)
                numbers.setdefault(member.name, set()).add(member.value)
    assert all(len(n) == 1 for n in names.values()), names
    assert all(len(n) == 1 for n in numbers.values()), numbers
    assert all(enum.CRASHED == 5 for enum in ENUMS)  # type: ignore[attr-defined]
    assert all(enum.REFUSED == 2 for enum in ENUMS)  # type: ignore[attr-defined]


def test_every_verdict_has_its_own_code_and_the_inverse_is_derived() -> None:
    assert set(exit_codes.run_exit_codes()) == set(Verdict)
    assert set(exit_codes.compare_exit_codes()) == set(CompareVerdict)
    for verdict, code in exit_codes.run_exit_codes().items():
        assert code.name == verdict.name and exit_codes.run_verdicts()[code] is verdict
    for c_verdict, c_code in exit_codes.compare_exit_codes().items():
        assert CompareExit[c_verdict.name] is c_code  # by name (NOTHING_TO_PROVE: an alias)
        assert c_verdict in exit_codes.compare_verdicts()[c_code]
    # the one code two verdicts share: both are clean, and the result file says which
    assert exit_codes.compare_verdicts()[0] == {
        CompareVerdict.VERIFIED,
        CompareVerdict.NOTHING_TO_PROVE,
    }
    assert CompareExit.NOTHING_TO_PROVE is CompareExit.VERIFIED
    assert all(len(v) == 1 for c, v in exit_codes.compare_verdicts().items() if c != 0)
    verdict_codes = set(exit_codes.run_verdicts()) | set(exit_codes.compare_verdicts())
    assert not verdict_codes & {RunExit.REFUSED, RunExit.CRASHED, RunExit.CANCELLED}
    assert len(exit_codes.run_verdicts()) == len(Verdict)  # no two verdicts share a code
    # what is not a verdict's code is every other member: refused, crashed and cancelled
    assert set(RunExit) - set(exit_codes.run_verdicts()) == {
        RunExit.REFUSED,
        RunExit.CRASHED,
        RunExit.CANCELLED,
    }
    assert set(CompareExit) - set(exit_codes.compare_verdicts()) == {
        CompareExit.REFUSED,
        CompareExit.CRASHED,
        CompareExit.CANCELLED,
    }


def test_the_verifier_tables_are_the_derived_ones() -> None:
    assert verify_cli.EXIT_CODES is exit_codes.run_exit_codes()
    assert verify_cli.COMPARE_EXIT_CODES is exit_codes.compare_exit_codes()
    with pytest.raises(TypeError):
        exit_codes.run_verdicts()[9] = Verdict.PASS  # type: ignore[index]


# --- each entry point maps each kind of error to its row -------------------------------------


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        (RuntimeError("a bug"), RunExit.CRASHED),
        (KeyError("missing"), RunExit.CRASHED),
        (Crashed("no verdict"), RunExit.CRASHED),
        (InputRefused("bad flag"), RunExit.REFUSED),
        (SandboxBlocked("no daemon"), RunExit.BLOCKED),
        (GitError("no such commit"), RunExit.REFUSED),
        (VerifyPrError("plain"), RunExit.REFUSED),
        (Cancelled("cancelled by SIGTERM"), RunExit.CANCELLED),
        (GitHubApiError("HTTP 502"), RunExit.CRASHED),  # no code here: a bug if it gets here
    ],
)
def test_verify_cli_rows(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: int,
) -> None:
    monkeypatch.setattr(verify_cli, "_main", _raise(raised))
    assert verify_cli.main(["run"]) == code
    err = capsys.readouterr().err
    if code == RunExit.CRASHED:
        assert "crashed (a bug in verify-pr, not a verdict on the PR)" in err
        assert "Traceback" in err


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        (RuntimeError("a bug"), SandboxExit.CRASHED),
        (Crashed("no result"), SandboxExit.CRASHED),
        (InputRefused("bad flag"), SandboxExit.REFUSED),
        (SandboxBlocked("no daemon"), SandboxExit.BLOCKED),
        # issue 37.3: these were BLOCKED here, refused in every other entry point; the docs
        # say BLOCKED is the engine's (Docker absent, a control dropped...), refused the input's
        (VerifyPrError("plain"), SandboxExit.REFUSED),
        (ReportError("bad report"), SandboxExit.REFUSED),
        (ConfigError("bad setting"), SandboxExit.REFUSED),
    ],
)
def test_sandbox_cli_rows(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: int,
) -> None:
    monkeypatch.setattr(sandbox_cli, "_main", _raise(raised))
    assert sandbox_cli.main([]) == code
    if code == SandboxExit.CRASHED:
        assert "verify-pr-sandbox: crashed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("raised", "code", "status"),
    [
        (RuntimeError("a bug"), StepExit.CRASHED, "crashed"),
        (Crashed("the verifier exited 70 without a verdict"), StepExit.CRASHED, "crashed"),
        (SandboxBlocked("the image build failed"), StepExit.BLOCKED, None),
        (ConfigError("bad input"), StepExit.REFUSED, None),
        (VerifyPrError("plain"), StepExit.REFUSED, None),
        (Cancelled("cancelled by SIGTERM"), StepExit.CANCELLED, None),
    ],
)
def test_action_rows(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    raised: BaseException,
    code: int,
    status: str | None,
) -> None:
    output = tmp_path / "output"
    output.touch()
    env = {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")}
    monkeypatch.setattr(step, "run", _raise(raised))
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    assert action.main([], env) == code
    assert ("crashed" in output.read_text()) == (status == "crashed")
    if isinstance(raised, RuntimeError):
        assert "verify-pr crashed: RuntimeError: a bug" in stdout.getvalue()
        assert "Traceback" in capsys.readouterr().err
    elif isinstance(raised, VerifyPrError | Cancelled):
        assert raised.message in stdout.getvalue()


class _Settings:
    raised: BaseException = RuntimeError()

    @classmethod
    def from_env(cls, _env: object) -> None:
        raise cls.raised


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        (RuntimeError("a bug"), PublishExit.CRASHED),
        (GitHubApiError("HTTP 502"), PublishExit.NOT_POSTED),
        (ConfigError("no token"), PublishExit.REFUSED),
        (Crashed("a bug"), PublishExit.CRASHED),  # was refused: a crash is 5 everywhere
    ],
)
def test_publish_rows(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    raised: BaseException,
    code: int,
) -> None:
    monkeypatch.setattr(_Settings, "raised", raised)
    monkeypatch.setattr(publish_main, "Settings", _Settings)
    assert publish_main.main({}) == code
    assert "::error title=verify-pr publish::" in capsys.readouterr().out


def test_every_error_class_declares_its_category() -> None:
    """Each class of errors.py says what it means; the entry points read nothing else."""
    declared = {
        cls: cls.category
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, VerifyPrError | Cancelled)
    }
    assert declared == {
        VerifyPrError: Category.REFUSED,
        InputRefused: Category.REFUSED,
        SandboxBlocked: Category.BLOCKED,
        Crashed: Category.CRASHED,
        ReportError: Category.REFUSED,
        GitError: Category.REFUSED,
        GitHubApiError: Category.NOT_POSTED,
        ConfigError: Category.REFUSED,
        Cancelled: Category.CANCELLED,
    }
    assert issubclass(Cancelled, BaseException) and not issubclass(Cancelled, Exception)


@pytest.mark.parametrize("enum", ENUMS)
def test_each_entry_point_has_a_code_per_category_by_name(enum: type[IntEnum]) -> None:
    codes = exit_codes.category_codes(enum)
    assert Category.CRASHED in codes and Category.REFUSED in codes
    for category in Category:
        if category.name in enum.__members__:
            assert codes[category] is enum[category.name]
        else:  # the entry point has no such code: what raises it there is a bug
            assert exit_codes.category_of(_instance(category), codes) is Category.CRASHED


def _instance(category: Category) -> BaseException:
    for cls in (GitHubApiError, Cancelled, SandboxBlocked, InputRefused, Crashed):
        if cls.category is category:
            return cls("x")
    raise AssertionError(category)


def test_run_entry_lets_keyboard_interrupt_and_exit_through() -> None:
    for exc in (KeyboardInterrupt(), SystemExit(3)):
        with pytest.raises(type(exc)):
            exit_codes.run_entry("p", _raise(exc), exit_codes.VERIFY_CODES)


# --- the docs' tables -----------------------------------------------------------------------


def _tables(markdown: str) -> list[list[list[str]]]:
    """Every Markdown table whose first header cell is ``exit``, as rows of stripped cells
    (the header first, the separator row dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            current = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if current is None:
            current = []
            if cells[0].lower() == "exit":
                tables.append(current)
        if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
            current.append(cells)
    return tables


def _members(enum: type[IntEnum]) -> list[tuple[str, IntEnum]]:
    """Each name with its member, aliases too (compare's 0 is VERIFIED and NOTHING_TO_PROVE)."""
    return [(n.lower().replace("_", " "), m) for n, m in enum.__members__.items()]


def _drift(table: list[list[str]]) -> list[str]:
    """What a table says that the enums do not: an unknown column, a code the entry point does
    not have, a code it has that the table leaves out, a cell without its member's name."""
    header, rows = table[0], table[1:]
    problems = [f"unknown entry point {name!r}" for name in header[1:] if name not in ENTRY_POINTS]
    for column, name in enumerate(header[1:], start=1):
        enum = ENTRY_POINTS.get(name)
        if enum is None:
            continue
        documented = {int(row[0]): row[column] for row in rows if row[column]}
        for code in sorted(set(documented) - {m.value for m in enum}):
            problems.append(f"{name}: {code} is documented but not an exit code")
        for label, member in _members(enum):
            if member.value not in documented:
                problems.append(f"{name}: {member.value} ({label}) is missing")
            elif label not in documented[member.value].lower():
                problems.append(f"{name}: {member.value} does not say {label!r}")
    return problems


def test_the_docs_exit_code_tables_match_the_enums() -> None:
    seen: set[str] = set()
    for path in DOCS:
        tables = _tables(path.read_text(encoding="utf-8"))
        assert tables, f"{path.name} has no exit-code table"
        for table in tables:
            assert not _drift(table), (path.name, _drift(table))
            seen |= set(table[0][1:])
    contract = {name for table in _tables(DOCS[0].read_text()) for name in table[0][1:]}
    assert contract == set(ENTRY_POINTS), "docs/contract.md's table names every entry point"
    assert seen == set(ENTRY_POINTS)


def test_the_table_check_sees_drift() -> None:
    """Positive control: a wrong label, a missing row, an extra row and an unknown column."""
    markdown = (
        "text\n\n| exit | verify-pr compare | verify-pr merge |\n|---|---|---|\n"
        "| 0 | VERIFIED | |\n| 1 | FAIL | |\n| 2 | refused | |\n| 3 | blocked (no daemon) | |\n"
        "| 5 | it broke | |\n\n| code | other |\n|---|---|\n| 0 | not an exit table |\n"
    )
    (table,) = _tables(markdown)
    assert sorted(_drift(table)) == [
        "unknown entry point 'verify-pr merge'",
        "verify-pr compare: 0 does not say 'nothing to prove'",  # the alias is held too
        "verify-pr compare: 1 is documented but not an exit code",
        "verify-pr compare: 4 (not proven) is missing",
        "verify-pr compare: 5 does not say 'crashed'",
        "verify-pr compare: 7 (cancelled) is missing",
    ]
