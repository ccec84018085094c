import pytest

from verify_pr.errors import ConfigError
from verify_pr.github.settings import Settings, input_variable, read_input

BASE = {
    "INPUT_GITHUB-TOKEN": "ghs_secret",
    "GITHUB_REPOSITORY": "octo/repo",
    "GITHUB_EVENT_NAME": "workflow_run",
    "GITHUB_EVENT_PATH": "/tmp/event.json",
}


def test_input_variable_follows_the_runner() -> None:
    assert input_variable("check-name") == "INPUT_CHECK-NAME"
    assert input_variable("my input") == "INPUT_MY_INPUT"


def test_defaults() -> None:
    settings = Settings.from_env(BASE)
    assert settings.check_name == "verify-pr"
    assert settings.artifact_name == "verify-pr-result"
    assert settings.api_url == "https://api.github.com"
    assert "ghs_secret" not in repr(settings)


def test_inputs_are_read_and_stripped() -> None:
    env = {**BASE, "INPUT_CHECK-NAME": "  tests  ", "GITHUB_API_URL": "https://ghe.example/api/v3"}
    settings = Settings.from_env(env)
    assert settings.check_name == "tests"
    assert settings.api_url == "https://ghe.example/api/v3"


def test_missing_token_is_a_config_error() -> None:
    env = {k: v for k, v in BASE.items() if k != "INPUT_GITHUB-TOKEN"}
    with pytest.raises(ConfigError, match="github-token"):
        Settings.from_env(env)


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("GITHUB_REPOSITORY", "no-slash", "repository"),
        ("GITHUB_API_URL", "http://api.github.com", "api_url"),
        ("INPUT_CHECK-NAME", "bad\nname", "check_name"),
        ("GITHUB_EVENT_PATH", "", "event_path"),
    ],
)
def test_invalid_settings_name_the_field(key: str, value: str, field: str) -> None:
    with pytest.raises(ConfigError, match=field) as info:
        Settings.from_env({**BASE, key: value})
    assert "ghs_secret" not in info.value.diagnostics()


def test_settings_are_frozen_and_strict() -> None:
    settings = Settings.from_env(BASE)
    with pytest.raises(ValueError, match="frozen"):
        settings.check_name = "x"  # type: ignore[misc]


def test_read_input_default() -> None:
    assert read_input({}, "x", default="d") == "d"
    with pytest.raises(ConfigError):
        read_input({"INPUT_X": "   "}, "x")
