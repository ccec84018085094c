"""The verdict's facts come from what the runner did (issue 21): for each class a PR that fixes
nothing and would have been VERIFIED by name rules, beside its honest twin (the positive
control), in real containers on the real daemon.

Classes: data outside a test folder (never code), a doctest text file pytest collects by
default, doctests in a module the PR changes (code and test at once), an existing test file
made unloadable on base by a new import, an autouse guard around untouched tests, jest tests
found through package.json's testMatch, a src layout whose conftest imports the package
(product code is not harness), and a change to the product's own ``testing`` subpackage,
which only the tests import: their support since issue 33 (class 2), so it proves nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import require_docker
from tests.git_helpers import checkout, commit, init_repo
from tests.integration.helpers import compare

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PYTHON_IMAGE = "verify-pr-python:local"
NODE_IMAGE = "verify-pr-node:local"

CALC_BUGGY = 'def add(a, b):\n    """\n    >>> add(2, 3)\n    5\n    """\n    return a - b\n'
CALC_FIXED = CALC_BUGGY.replace("return a - b", "return a + b")
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
RENDER = (
    "from pathlib import Path\n\n\ndef expected():\n"
    '    return (Path(__file__).parent / "data" / "greeting.txt").read_text()\n\n\n'
    'def render(name):\n    return "hello " + name\n'
)
TEST_RENDER = 'from render import expected, render\n\n\ndef test_render():\n    assert render("World") == expected()\n'
TEST_OK = "def test_ok():\n    assert 1 + 1 == 2\n"  # passes on base: the attacks' target


def _heads(
    repo: Path, base: str, variants: dict[str, dict[str, str | bytes | None]]
) -> dict[str, str]:
    heads = {}
    for name, files in variants.items():
        checkout(repo, base)
        heads[name] = commit(repo, files, name)
    return heads


def _verdict(
    tmp_path: Path, repo: Path, base: str, head: str, image: str = PYTHON_IMAGE, *extra: str
) -> tuple[str, tuple[str, ...], set[str]]:
    _code, result, _ = compare(tmp_path, repo, base, head, image, "--flake-runs", "1", *extra)
    return result.verdict, result.reasons, {p.id.split("::")[-1] for p in result.proofs}


@pytest.fixture(scope="module")
def py_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, str]]:
    require_docker(PYTHON_IMAGE)
    repo = init_repo(tmp_path_factory.mktemp("facts") / "repo")
    base = commit(
        repo,
        {
            "pytest.ini": "[pytest]\naddopts = --doctest-modules --doctest-glob=test*.txt\n",
            "calc.py": CALC_BUGGY,
            "render.py": RENDER,
            "data/greeting.txt": "Hello World",
            "test_doc.txt": ">>> from calc import add\n>>> add(1, 1)\n2\n",
            "tests/test_calc.py": TEST_CALC,
            "tests/test_render.py": TEST_RENDER,
            "tests/test_ok.py": TEST_OK,
        },
        "base: add() and render() are wrong",
    )
    heads = _heads(
        repo,
        base,
        {
            "fix": {"calc.py": CALC_FIXED, "render.py": RENDER.replace('"hello "', '"Hello "')},
            # data the code reads, outside a test folder: rewritten to match the bug
            "data": {"data/greeting.txt": "hello World"},
            # pytest's default doctest glob: the expectation rewritten to the bug's answer
            "doctext": {"test_doc.txt": ">>> from calc import add\n>>> add(1, 1)\n0\n"},
            # doctests in the code: only the docstring's expectation changes
            "docstring": {"calc.py": CALC_BUGGY.replace("    5\n", "    -1\n")},
            # an existing test file that cannot load on base's code, with no new test
            "import": {
                "calc.py": CALC_BUGGY + "\n\ndef sub(a, b):\n    return a - b\n",
                "tests/test_ok.py": "from calc import sub  # noqa: F401\n" + TEST_OK,
            },
            "import_fix": {
                "calc.py": CALC_BUGGY + "\n\ndef sub(a, b):\n    return a - b\n",
                "tests/test_ok.py": "from calc import sub\n"
                + TEST_OK
                + "\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
            },
            # an autouse guard fails every untouched test on base's code
            "guard": {
                "calc.py": CALC_BUGGY + "\n\nNEW = True\n",
                "tests/test_ok.py": "import calc\nimport pytest\n\n\n"
                "@pytest.fixture(autouse=True)\ndef _guard():\n    assert hasattr(calc, 'NEW')\n\n\n"
                + TEST_OK,
            },
        },
    )
    return repo, base, heads


def test_the_real_fix_is_verified(
    py_repo: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = py_repo
    verdict, reasons, proofs = _verdict(tmp_path, repo, base, heads["fix"])
    assert verdict == "VERIFIED", reasons
    # calc.py's own doctest turned green too, but it is code and test at once: no proof
    assert {"test_add", "test_render"} <= proofs, proofs
    assert not any("calc.add" in p for p in proofs), proofs


@pytest.mark.parametrize(
    ("variant", "needle"),
    [
        ("data", "does not show what the PR fixes"),
        ("doctext", "does not show what the PR fixes"),
        ("docstring", "none in its own right"),
        ("import", "only its file failed to load"),
        ("guard", "errored outside its own body"),
    ],
)
def test_a_change_of_the_expectation_is_not_verified(
    py_repo: tuple[Path, str, dict[str, str]], tmp_path: Path, variant: str, needle: str
) -> None:
    repo, base, heads = py_repo
    verdict, reasons, _ = _verdict(tmp_path, repo, base, heads[variant])
    assert verdict == "NOT_PROVEN"
    assert any(needle in r for r in reasons), reasons


def test_a_new_test_beside_a_new_import_is_the_proof(
    py_repo: tuple[Path, str, dict[str, str]], tmp_path: Path
) -> None:
    repo, base, heads = py_repo
    verdict, reasons, proofs = _verdict(tmp_path, repo, base, heads["import_fix"])
    assert verdict == "VERIFIED", reasons
    assert proofs == {"test_sub"}  # never test_ok, which only could not load on base


def test_a_src_layout_fix_whose_conftest_imports_the_package_is_verified(tmp_path: Path) -> None:
    require_docker(PYTHON_IMAGE)
    repo = init_repo(tmp_path / "repo")
    core = "def double(x):\n    return x + x + 1\n"
    base = commit(
        repo,
        {
            "pyproject.toml": '[project]\nname = "mypkg"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n',
            "src/mypkg/__init__.py": "",
            "src/mypkg/core.py": core,
            "src/mypkg/testing/__init__.py": "",
            "src/mypkg/testing/asserts.py": "def is_even(x):\n    return x % 2 == 1\n",
            "tests/conftest.py": "import pytest\n\nfrom mypkg import core\n\n\n"
            "@pytest.fixture\ndef double():\n    return core.double\n",
            "tests/test_core.py": "def test_double(double):\n    assert double(2) == 4\n",
            "tests/test_even.py": "from mypkg.testing.asserts import is_even\n\n\n"
            "def test_even():\n    assert is_even(4)\n",
        },
        "base",
    )
    heads = _heads(
        repo,
        base,
        {
            "fix": {"src/mypkg/core.py": core.replace(" + 1", "")},
            "testing": {"src/mypkg/testing/asserts.py": "def is_even(x):\n    return x % 2 == 0\n"},
            "conftest": {
                "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef double():\n"
                "    return lambda x: x * 2\n"
            },
            # a module named like one the image's pytest loads at startup (attrs): in a src
            # layout the runner imports the tree's copy
            "shadow": {
                "src/mypkg/core.py": core.replace(" + 1", ""),
                "src/attr/__init__.py": "from attr_real import *  # noqa\n",
            },
        },
    )
    verdict, reasons, proofs = _verdict(tmp_path / "fix", repo, base, heads["fix"])
    assert (verdict, proofs) == ("VERIFIED", {"test_double"}), reasons
    # mypkg/testing is a testing subpackage nothing of the product imports: the tests' support
    # (issue 33, class 2), the PR's version on both sides, where it proves nothing
    verdict, reasons, proofs = _verdict(tmp_path / "testing", repo, base, heads["testing"])
    assert (verdict, proofs) == ("NOT_PROVEN", set()), reasons
    verdict, reasons, _ = _verdict(tmp_path / "shadow", repo, base, heads["shadow"])
    assert verdict == "NOT_PROVEN"
    assert any("src/attr" in r and "startup" in r for r in reasons), reasons
    # the hostile twin: the conftest (harness) itself makes the test pass
    verdict, reasons, _ = _verdict(tmp_path / "conftest", repo, base, heads["conftest"])
    assert verdict == "NOT_PROVEN"
    assert any("tests/conftest.py" in r for r in reasons), reasons


def test_jest_tests_found_through_test_match_prove_a_fix(tmp_path: Path) -> None:
    require_docker(NODE_IMAGE)
    repo = init_repo(tmp_path / "repo")
    pkg = '{"name":"m","private":true,"scripts":{"test":"jest"},"jest":{"testMatch":["**/*.check.js"]}}'
    check = "const { add } = require('./math');\n\ntest('adds', () => { expect(add(2, 3)).toBe(5); });\n"
    base = commit(
        repo,
        {
            "package.json": pkg,
            "math.js": "exports.add = (a, b) => a - b;\nexports.one = () => 1;\n",
            "one.check.js": "const { one } = require('./math');\n\ntest('one', () => { expect(one()).toBe(1); });\n",
        },
        "base",
    )
    heads = _heads(
        repo,
        base,
        {
            "fix": {
                "math.js": "exports.add = (a, b) => a + b;\nexports.one = () => 1;\n",
                "math.check.js": check,
            },
            # a new module and its new test file, which jest cannot load on base's code
            "new_module": {
                "sub.js": "exports.sub = (a, b) => a - b;\n",
                "sub.check.js": "const { sub } = require('./sub');\n\n"
                "test('subtracts', () => { expect(sub(3, 1)).toBe(2); });\n",
            },
            # the hostile twin: no fix; the existing check file's expectation is changed
            "weakened": {
                "one.check.js": "const { one } = require('./math');\n\n"
                "test('one', () => { expect(one()).toBe(1); });\n"
                "test('adds', () => { expect(require('./math').add(2, 3)).toBe(-1); });\n",
            },
        },
    )
    verdict, reasons, proofs = _verdict(tmp_path / "fix", repo, base, heads["fix"], NODE_IMAGE)
    assert (verdict, proofs) == ("VERIFIED", {"adds"}), reasons
    verdict, reasons, proofs = _verdict(
        tmp_path / "new", repo, base, heads["new_module"], NODE_IMAGE
    )
    assert (verdict, proofs) == ("VERIFIED", {"subtracts"}), reasons
    verdict, reasons, _ = _verdict(tmp_path / "weak", repo, base, heads["weakened"], NODE_IMAGE)
    assert verdict == "NOT_PROVEN", reasons
