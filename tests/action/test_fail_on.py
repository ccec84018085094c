"""The verify action's ``fail-on`` input (issue 23.4): which verdicts turn the verify job red.

The verify step validates the input before anything runs and sets ``fails-job``; the action's
last step (bash, in action.yml) fails the job unless that says ``false``. Each is tested here:
the parser, the step's output for every verdict of both modes, and the real shell step.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from tests.action.compare_builders import case, compare_result
from tests.action.helpers import VERIFY_ACTION, load, step_env, verdict_file, verifier_seam
from verify_pr import action
from verify_pr.errors import ConfigError
from verify_pr.exit_codes import StepExit, compare_exit_codes, run_exit_codes
from verify_pr.github.settings import (
    DEFAULT_FAIL_ON,
    FAIL_ON_CHOICES,
    VerifySettings,
    parse_fail_on,
)
from verify_pr.models.compare import CompareResult, CompareVerdict
from verify_pr.models.report import TestStatus
from verify_pr.models.verdict import Verdict


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**step_env(tmp_path), "GITHUB_EVENT_PATH": "/github/event.json"}


# --- the input ------------------------------------------------------------------------------


def test_the_default_fails_on_every_verdict_that_is_no_success_of_its_mode() -> None:
    assert parse_fail_on(DEFAULT_FAIL_ON) == ("FAIL", "NOT_PROVEN", "BLOCKED")
    assert set(FAIL_ON_CHOICES) == {v.value for v in (*Verdict, *CompareVerdict)} - {
        "PASS",
        "VERIFIED",
    }
    default = VerifySettings.model_fields["fail_on"].default
    assert default == parse_fail_on(DEFAULT_FAIL_ON)
    assert load(VERIFY_ACTION)["inputs"]["fail-on"]["default"] == DEFAULT_FAIL_ON


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("NOT_PROVEN", ("NOT_PROVEN",)),
        (" FAIL , NOTHING_TO_PROVE,FAIL ", ("FAIL", "NOTHING_TO_PROVE")),
        ("none", ()),
    ],
)
def test_accepted_lists(env: dict[str, str], value: str, parsed: tuple[str, ...]) -> None:
    env["INPUT_FAIL-ON"] = value
    assert VerifySettings.from_env(env).fail_on == parsed


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("NOT_PROVED", "'NOT_PROVED', which is no verdict"),
        ("not_proven", "'not_proven', which is no verdict"),
        ("NOT PROVEN", "'NOT PROVEN', which is no verdict"),
        ("FAIL,,BLOCKED", "an empty name, which is no verdict"),
        ("FAIL;BLOCKED", "which is no verdict"),
        ("NONE", "'NONE', which is no verdict"),
        ("FAIL,none", "'none', which is no verdict"),
        ("PASS", "PASS, a success"),
        ("NOT_PROVEN,VERIFIED", "VERIFIED, a success"),
    ],
)
def test_refused_lists_say_what_is_wrong(env: dict[str, str], value: str, said: str) -> None:
    env["INPUT_FAIL-ON"] = value
    with pytest.raises(ConfigError, match="fail-on") as caught:
        VerifySettings.from_env(env)
    assert said in caught.value.message
    assert "NOTHING_TO_PROVE" in caught.value.diagnostics()  # the hint lists the choices


def test_a_refused_list_is_refused_before_the_verifier_runs(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[object] = []
    verifier_seam(monkeypatch, lambda *a, **_: ran.append(a))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    env["INPUT_FAIL-ON"] = "NOT_PROVED"
    assert action.main([], env) == StepExit.REFUSED
    assert ran == []


# --- the step's fails-job output ------------------------------------------------------------


def _outputs(env: dict[str, str]) -> dict[str, str]:
    """GITHUB_OUTPUT's heredoc entries (``name<<delimiter``, value, delimiter)."""
    lines = Path(env["GITHUB_OUTPUT"]).read_text().splitlines()
    found = {}
    for i, line in enumerate(lines):
        if "<<" in line:
            found[line.split("<<", 1)[0]] = lines[i + 1]
    return found


def _fake_verifier(write: object, code: int) -> object:
    def run(argv: list[str], **_: object) -> subprocess.CompletedProcess[bytes]:
        out = Path(argv[argv.index("--out") + 1])
        out.mkdir(parents=True, exist_ok=True)
        assert callable(write)
        write(out)
        return subprocess.CompletedProcess(argv, code, b"", b"")

    return run


def _compare(verdict: CompareVerdict) -> CompareResult:
    passing = verdict_file(Verdict.PASS, (case(TestStatus.PASSED),))
    return compare_result(passing, passing, verdict)


@pytest.mark.parametrize("verdict", list(CompareVerdict))
@pytest.mark.parametrize("fail_on", ["", "NOT_PROVEN,BLOCKED,NOTHING_TO_PROVE", "none"])
def test_compare_fails_job_follows_fail_on(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, verdict: CompareVerdict, fail_on: str
) -> None:
    result = _compare(verdict)

    def write(out: Path) -> None:
        (out / "verify-pr-result.json").write_text(result.model_dump_json())

    code = compare_exit_codes()[verdict]
    verifier_seam(monkeypatch, _fake_verifier(write, code))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    env.update({"INPUT_MODE": "compare", "INPUT_FAIL-ON": fail_on})
    assert action.main([], env) == StepExit.OK
    listed = parse_fail_on(fail_on or DEFAULT_FAIL_ON)
    outputs = _outputs(env)
    assert outputs["verdict"] == verdict.value
    assert outputs["fails-job"] == ("true" if verdict.value in listed else "false")
    if not fail_on:  # the default: a PR that proves no fix keeps the job green
        clean = verdict in (CompareVerdict.VERIFIED, CompareVerdict.NOTHING_TO_PROVE)
        assert outputs["fails-job"] == ("false" if clean else "true")


@pytest.mark.parametrize("verdict", list(Verdict))
def test_run_mode_fails_job_by_default_on_all_but_pass(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, verdict: Verdict
) -> None:
    status = TestStatus.FAILED if verdict is Verdict.FAIL else TestStatus.PASSED
    written = verdict_file(verdict, (case(status),))

    def write(out: Path) -> None:
        (out / "verdict.json").write_text(written.model_dump_json())

    verifier_seam(monkeypatch, _fake_verifier(write, run_exit_codes()[verdict]))
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert action.main([], env) == StepExit.OK
    assert _outputs(env)["fails-job"] == ("false" if verdict is Verdict.PASS else "true")


# --- the action's last step -----------------------------------------------------------------


def _conclude(verdict: str, fails_job: str | None) -> subprocess.CompletedProcess[str]:
    (step,) = [s for s in load(VERIFY_ACTION)["runs"]["steps"] if s["name"] == "Conclude"]
    assert set(step["env"]) == {"VERDICT", "FAILS_JOB"}
    env = {"PATH": "/usr/bin:/bin", "VERDICT": verdict}
    if fails_job is not None:
        env["FAILS_JOB"] = fails_job
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    ("verdict", "fails_job", "code"),
    [
        ("PASS", "false", 0),
        ("VERIFIED", "false", 0),
        ("NOTHING_TO_PROVE", "false", 0),
        ("NOT_PROVEN", "false", 0),  # fail-on left it out: the check run still carries it
        ("NOTHING_TO_PROVE", "true", 1),
        ("NOT_PROVEN", "true", 1),
        ("FAIL", "true", 1),
        ("BLOCKED", "true", 1),
        # fail closed: no answer, a garbled answer, no verdict, a verdict that is none
        ("VERIFIED", None, 1),
        ("VERIFIED", "", 1),
        ("VERIFIED", "False", 1),
        ("", "false", 1),
        ("OK", "false", 1),
    ],
)
def test_the_last_step_fails_the_job_unless_told_false(
    verdict: str, fails_job: str | None, code: int
) -> None:
    done = _conclude(verdict, fails_job)
    assert done.returncode == code, done.stdout + done.stderr
    if code == 0:
        assert done.stdout == f"verify-pr: {verdict}\n"
    elif verdict in ("", "OK"):
        assert "no verdict was written" in done.stdout
    else:
        assert f"verdict {verdict} fails the job (input fail-on" in done.stdout
