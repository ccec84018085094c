"""harness_hooks: the plugins a test module names, and product code that carries hooks."""

from __future__ import annotations

import pytest

from verify_pr.verify.harness.hooks import defines_hooks, plugin_refs, star_imports
from verify_pr.verify.harness.refs import ModuleRef


def _modules(path: str, text: str) -> set[str]:
    return {r.dotted for r in plugin_refs(path, text.encode()) if isinstance(r, ModuleRef)}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('pytest_plugins = ["plug", "a.b"]\nx = "calc"\n', {"plug", "a.b"}),
        ('pytest_plugins = "plug"\n', {"plug"}),
        ('pytest_plugins: tuple[str, ...] = ("plug",)\n', {"plug"}),
        ('def test_x():\n    assert "calc"\n', set()),
    ],
)
def test_plugins_read_from_the_assignment(text: str, named: set[str]) -> None:
    assert _modules("tests/test_x.py", text) == named


@pytest.mark.parametrize(
    "text",
    [
        'pytest_plugins = ["pl" + "ug"]\nx = "plug"\n',  # computed: every string may be one
        'globals()["pytest_plugins"] = ["plug"]\n',  # not a plain assignment
        'pytest_plugins = ["plug"\n',  # unparsable here
    ],
)
def test_plugins_fail_closed_to_every_string(text: str) -> None:
    assert "plug" in _modules("test_x.py", text)


@pytest.mark.parametrize(
    ("text", "hooks"),
    [
        ("def pytest_runtest_makereport(item, call):\n    pass\n", True),
        ("async def pytest_collection_modifyitems(items):\n    pass\n", True),
        ("pytest_runtest_makereport = _impl\n", True),
        ("@pytest.hookimpl(hookwrapper=True)\ndef anything(item):\n    yield\n", True),
        ("@pytest.fixture(autouse=True)\ndef guard():\n    yield\n", True),
        ("def add(a, b):\n    return a + b\n", False),
        ("def helper_pytest_like():\n    pass\n", False),
        ('"""Marks a hookimpl; see autouse fixtures."""\nHookimplMarker = object\n', False),
        ("@pytest.fixture(autouse=False)\ndef opt_in():\n    yield\n", False),
        ("@fixture(autouse = flag)\ndef guard():\n    yield\n", True),
        # bound under a name computed at run time (issue 33): fail closed
        ('globals()["py" + "test_runtest_makereport"] = hook\n', True),
        ('setattr(sys.modules["conftest"], name, hook)\n', True),
        ("from sys import modules\n", True),
        ("vars()[name] = hook\n", True),
        ("exec(source)\n", True),
        ("inspect.currentframe().f_back.f_globals[name] = hook\n", True),
        ("hook = pytest.hookimpl(hookwrapper=True)(_report)\n", True),
        ('guard = pytest.fixture(**{"autouse": True})(_guard)\n', True),
        ("guard = fixture(scope='session', **options)(_guard)\n", True),
        ("from _pytest.faulthandler import pytest_configure as configure\n", True),
        ("import gc\nfor o in gc.get_objects():\n    pass\n", True),
        ("def configure(settings):\n    return dict(settings)\n", False),
        # a comment binds nothing (packaging's markers.py: "plain __dict__", issue 36)
        ("state = dict(s)  # Old format: plain __dict__.\n# autouse=True, pytest_x\n", False),
        # a "#" inside a string is no comment: what follows it on the line is read
        ('x = "# not a comment"; globals()["pytest_x"] = hook\n', True),
        ('s = """\n# text\n"""\nexec(s)  # run it\n', True),
        # text the tokenizer cannot read keeps every word (fail closed)
        ("x = (1  # __dict__\n", True),
    ],
)
def test_hooks_read_from_the_bytes(text: str, hooks: bool) -> None:
    assert defines_hooks(text.encode()) is hooks


def test_star_imports_keep_their_dots() -> None:
    text = b"from helper import *\nfrom .hooks import (*)\nfrom a import b\n"
    assert star_imports(text) == ["helper", ".hooks"]
