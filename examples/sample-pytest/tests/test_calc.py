import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

from calc import add  # noqa: E402


def test_add() -> None:
    assert add(2, 3) == 5


def test_no_token_in_the_sandbox() -> None:
    assert "GITHUB_TOKEN" not in os.environ
