"""The image's ENV, variable by variable (issue 23, item 2): what is accepted (it changes neither
the wrapper nor the tests, and the check does not get it), what stays refused, and why."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from verify_pr.contract import WORK_DIR
from verify_pr.errors import InputRefused
from verify_pr.models.sandbox import CheckEnvironment
from verify_pr.sandbox.image_check import CHECK_VARIABLES, check_image_env

ACCEPTED = [
    "PIP_NO_CACHE_DIR=1",
    "PIP_DISABLE_PIP_VERSION_CHECK=1",
    "PIP_INDEX_URL=https://user:token@pypi.example/simple",
    "PYTHONDONTWRITEBYTECODE=1",
    "PYTHONUNBUFFERED=1",
    "DEBIAN_FRONTEND=noninteractive",
    "TZ=Europe/Paris",
    "LANG=C.UTF-8",
    "LANGUAGE=en_US:en",
    "LC_ALL=C.UTF-8",
    "NODE_ENV=production",
    "NPM_CONFIG_UPDATE_NOTIFIER=false",
    "npm_config_loglevel=warn",
    "PYTHON_VERSION=3.12.7",
    "PYTHON_SHA256=abc",
    "PYTHON_GET_PIP_URL=https://example/get-pip.py",
    "GPG_KEY=ABCDEF",
    "NODE_VERSION=18.20.4",
    "YARN_VERSION=1.22.22",
]
WRAPPER = [
    "LD_PRELOAD=/x.so",
    "LD_LIBRARY_PATH=/x",
    "GLIBC_TUNABLES=glibc.malloc.check=3",
    "MALLOC_PERTURB_=1",
    "GCONV_PATH=/x",
    "LOCPATH=/x",
    "BASH_ENV=/x",
    "ENV=/x",
    "IFS=x",
    "SHELLOPTS=xtrace",
    "PS4=$(id)",
    "CDPATH=/x",
    "POSIXLY_CORRECT=1",
    "GITHUB_TOKEN=ghp_x",
]
RUNNER = [
    "PYTHONPATH=/opt/lib",
    "PYTHONHOME=/opt/py",
    "PYTHONSTARTUP=/x.py",
    "PYTHONWARNINGS=error",
    "NODE_OPTIONS=--require /x.js",
    "NODE_PATH=/opt/node",
    "BUN_INSTALL=/x",
]


def test_common_lines_are_accepted_and_named_as_scrubbed() -> None:
    checked = check_image_env({"Env": ["PATH=/opt/bin:/usr/bin", *ACCEPTED, "LANG=C"]})
    assert checked.path == "/opt/bin:/usr/bin"
    names = [line.partition("=")[0] for line in ACCEPTED]
    assert checked.scrubbed == tuple(names)  # each once, in the image's order; PATH is passed
    assert "token" not in repr(checked)  # names only


@pytest.mark.parametrize("line", WRAPPER)
def test_what_could_change_the_wrapper_stays_refused(line: str) -> None:
    with pytest.raises(InputRefused, match="could change what the sandbox wrapper does"):
        check_image_env({"Env": [line]})


@pytest.mark.parametrize("line", RUNNER)
def test_what_the_tests_would_miss_stays_refused_and_says_so(line: str) -> None:
    with pytest.raises(InputRefused, match="which the check would not get"):
        check_image_env({"Env": [line]})


def test_one_refused_line_among_accepted_ones_refuses() -> None:
    with pytest.raises(InputRefused, match="PYTHONPATH"):
        check_image_env({"Env": [*ACCEPTED, "PYTHONPATH=/x"]})
    assert check_image_env({"Env": ACCEPTED}).scrubbed  # control: without it, accepted


def test_no_env_gives_the_default_path_and_nothing_scrubbed() -> None:
    checked = check_image_env({})
    assert checked.scrubbed == () and checked.path.startswith("/usr/local/sbin:")


def test_check_variables_are_what_the_wrapper_passes() -> None:
    """result.json's ``passed`` names come from CHECK_VARIABLES: they must be wrapper.sh's."""
    text = resources.files("verify_pr.sandbox").joinpath("wrapper.sh").read_text()
    lines = [ln for ln in text.splitlines() if re.match(r"\s*env -i ", ln)]
    assert len(lines) == 1, lines
    passed = re.findall(r"\b([A-Z]+)=(\S+)", lines[0].split(" timeout ")[0])
    assert tuple(k for k, _ in passed) == CHECK_VARIABLES
    assert dict(passed) == {"PATH": '"$PATH"', "HOME": WORK_DIR, "CI": "1"}


def test_the_result_field_refuses_what_is_not_a_variable_name() -> None:
    CheckEnvironment(passed={"PATH": "/bin"}, scrubbed=("LANG",))
    with pytest.raises(ValueError, match="pattern"):
        CheckEnvironment(passed={"PATH": "/bin"}, scrubbed=("A=B",))
