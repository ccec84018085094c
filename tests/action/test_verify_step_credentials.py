"""The verify step refuses to run with credentials: in the job's environment, persisted by
actions/checkout in .git/config, or in a file that config includes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tests.action.helpers import step_env
from verify_pr import action
from verify_pr.errors import ConfigError
from verify_pr.exit_codes import StepExit
from verify_pr.github.credentials import held_credentials


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return step_env(tmp_path)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://token.actions.example/x"),
        ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "eyJ"),
        ("GITHUB_TOKEN", "ghs_x"),
        ("GH_TOKEN", "ghp_x"),
        ("NPM_TOKEN", "x"),
        ("DEPLOY_SECRET", "x"),
        ("INPUT_GITHUB-TOKEN", "x"),
        ("SOMETHING", "ghp_" + "a" * 36),
    ],
)
def test_credentials_in_the_job_are_refused(env: dict[str, str], name: str, value: str) -> None:
    env[name] = value
    stream = io.StringIO()
    with pytest.raises(ConfigError, match="refusing to run with credentials") as caught:
        action.run(env, stream)
    assert value not in caught.value.diagnostics() or len(value) < 3
    assert "permissions: {}" in caught.value.diagnostics()
    assert Path(env["GITHUB_OUTPUT"]).read_text() == ""


def test_persisted_checkout_credentials_are_refused(env: dict[str, str]) -> None:
    git = Path(env["GITHUB_WORKSPACE"]) / ".git"
    git.mkdir()
    (git / "config").write_text(
        '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n'
    )
    with pytest.raises(ConfigError, match="persist-credentials"):
        action.run(env, io.StringIO())


def test_main_maps_a_refusal_to_exit_2_with_an_encoded_error(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    env["GITHUB_TOKEN"] = "ghs_x"
    assert action.main([], env) == StepExit.REFUSED
    out = capsys.readouterr().out
    assert out.startswith("::error title=verify-pr refused::") and out.count("\n") == 1


def _v6_checkout(workspace: Path, creds: Path, body: str) -> None:
    """What actions/checkout v6 leaves: an includeIf line pointing at a credentials file."""
    git = workspace / ".git"
    git.mkdir(exist_ok=True)
    creds.write_text(body)
    (git / "config").write_text(
        f'[core]\n\trepositoryformatversion = 0\n[includeIf "gitdir:{git}"]\n\tpath = {creds}\n'
    )


def test_v6_credentials_file_is_refused(env: dict[str, str], tmp_path: Path) -> None:
    creds = tmp_path / "git-credentials-0b5c.config"
    _v6_checkout(
        Path(env["GITHUB_WORKSPACE"]),
        creds,
        '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n',
    )
    with pytest.raises(ConfigError, match="persist-credentials") as caught:
        action.run(env, io.StringIO())
    assert str(creds) in caught.value.diagnostics()
    assert "eA==" not in caught.value.diagnostics()


def test_v6_include_without_credentials_is_accepted(tmp_path: Path) -> None:
    """Positive control of the include walk: an included file with no credential is fine."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    _v6_checkout(workspace, tmp_path / "other.config", "[user]\n\tname = x\n")
    assert held_credentials({}, workspace) == []


@pytest.mark.parametrize("form", ["relative", "home", "nested", "plain-include", "quoted"])
def test_included_credentials_are_found_in_every_form(tmp_path: Path, form: str) -> None:
    workspace = tmp_path / "ws"
    git = workspace / ".git"
    git.mkdir(parents=True)
    secret = "[http]\n\textraheader = AUTHORIZATION: basic eA==\n"
    home = tmp_path / "home"
    home.mkdir()
    (home / "creds").write_text(secret)
    (git / "creds").write_text(secret)
    (tmp_path / "inner").write_text(secret)
    (tmp_path / "outer").write_text(f"[include]\n\tpath = {tmp_path / 'inner'}\n")
    line = {
        "relative": '[includeIf "gitdir:/x/"]\n\tpath = creds\n',
        "home": '[includeIf "onbranch:main"]\n  path = ~/creds\n',
        "nested": f"[include]\n\tpath = {tmp_path / 'outer'}\n",
        "plain-include": "[include]\npath=creds\n",
        "quoted": f'[includeIf "gitdir:/x/"]\n\tpath = "{git / "creds"}"\n',
    }[form]
    (git / "config").write_text(line)
    found = held_credentials({"HOME": str(home)}, workspace)
    assert len(found) == 1 and "persisted credentials" in found[0], found


def test_include_cycle_ends(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    git = workspace / ".git"
    git.mkdir(parents=True)
    (git / "config").write_text("[include]\n\tpath = config\n")
    assert held_credentials({}, workspace) == []
