"""The harness closure scan: each form of reach (imports, strings, links, renames), a cycle,
the caps, and empty submodules. Plain folders stand for the two exports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verify_pr.verify.harness import closure as hc


def tree(root: Path, files: dict[str, str], links: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    for name, target in (links or {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / name)
    return root


def same(tmp_path: Path, files: dict[str, str], links: dict[str, str] | None = None) -> Path:
    return tree(tmp_path / "t", files, links)


def scan_one(
    root: Path, changed: list[str], renames: list[tuple[str, str]] | None = None
) -> hc.HarnessScan:
    return hc.scan(root, root, changed, renames or [])


@pytest.mark.parametrize(
    ("conftest", "files", "reached"),
    [
        ("import helper\n", {"helper.py": ""}, "helper.py"),
        ("import os, helper as h\n", {"helper.py": ""}, "helper.py"),
        ("from helper import fix\n", {"helper.py": ""}, "helper.py"),
        ("from pkg import (\n    a,\n    mod,\n)\n", {"pkg/mod.py": ""}, "pkg/mod.py"),
        ("import pkg.sub.mod\n", {"pkg/sub/mod.py": ""}, "pkg/sub/mod.py"),
        ("def f():\n    import helper\n", {"helper.py": ""}, "helper.py"),
        ("x = 1; import helper\n", {"helper.py": ""}, "helper.py"),
        ("from . import helper\n", {"tests/helper.py": ""}, "tests/helper.py"),
        ("from .support.mod import x\n", {"tests/support/mod.py": ""}, "tests/support/mod.py"),
        ("from ..shared import x\n", {"shared.py": ""}, "shared.py"),
        ("pytest_plugins = ['plugins.force']\n", {"plugins/force.py": ""}, "plugins/force.py"),
        ("importlib.import_module('helper')\n", {"helper.py": ""}, "helper.py"),
        ("exec(open('tools/h.py').read())\n", {"tools/h.py": ""}, "tools/h.py"),
        ("p = ['a\\\\b', 'plugins.force']\n", {"plugins/force.py": ""}, "plugins/force.py"),
        ("x = \"it's\"; y = ['plugins.force']\n", {"plugins/force.py": ""}, "plugins/force.py"),
    ],
)
def test_python_import_forms_reach_the_module(
    tmp_path: Path, conftest: str, files: dict[str, str], reached: str
) -> None:
    root = same(tmp_path, {"tests/conftest.py": conftest, **files})
    found = scan_one(root, [reached, "unrelated.py"])
    assert found.paths == (reached,)
    assert any(reached in note and "tests/conftest.py" in note for note in found.notes)


@pytest.mark.parametrize(
    ("conftest", "files", "code"),
    [
        ("from pkg import mod\n", {"pkg/__init__.py": "", "pkg/mod.py": ""}, "pkg/mod.py"),
        ("import mylib\n", {"src/mylib/__init__.py": ""}, "src/mylib/__init__.py"),
        (
            "from mylib.core import f\n",
            {"src/mylib/__init__.py": "", "src/mylib/core.py": ""},
            "src/mylib/core.py",
        ),
    ],
)
def test_product_code_a_conftest_imports_is_not_harness(
    tmp_path: Path, conftest: str, files: dict[str, str], code: str
) -> None:
    # the package under test runs inside the test process anyway (the documented residual):
    # as harness, --strict-harness would put base's copy back and undo the fix
    root = same(tmp_path, {"tests/conftest.py": conftest, "helper.py": "", **files})
    assert scan_one(root, [code]).paths == ()
    # positive control: the same conftest importing a plain module of the tree still reaches it
    helped = same(
        tmp_path / "control", {"tests/conftest.py": conftest + "import helper\n", "helper.py": ""}
    )
    assert scan_one(helped, ["helper.py"]).paths == ("helper.py",)


def test_a_plugin_named_in_a_product_package_is_still_harness(tmp_path: Path) -> None:
    root = same(
        tmp_path,
        {
            "tests/conftest.py": "pytest_plugins = ['pkg.force']\nfrom pkg import core\n",
            "pkg/__init__.py": "",
            "pkg/force.py": "",
            "pkg/core.py": "",
        },
    )
    assert scan_one(root, ["pkg/force.py", "pkg/core.py"]).paths == ("pkg/force.py",)


def test_transitive_imports_and_a_cycle_end(tmp_path: Path) -> None:
    root = same(
        tmp_path,
        {
            "conftest.py": "import a\n",
            "a.py": "import b\n",
            "b.py": "import a\nimport c\n",
            "c.py": "",
            "d.py": "import a\n",  # imports the closure but is not reached by it
        },
    )
    found = scan_one(root, ["a.py", "b.py", "c.py", "d.py"])
    assert found.paths == ("a.py", "b.py", "c.py")


def test_code_no_harness_file_reaches_is_not_harness(tmp_path: Path) -> None:
    """Positive control: the same tree with no import from the conftest."""
    root = same(tmp_path, {"conftest.py": "import os\n", "helper.py": "", "calc.py": ""})
    found = scan_one(root, ["helper.py", "calc.py"])
    assert found.paths == ()
    assert found.reasons(strict_harness=False) == []


@pytest.mark.parametrize(
    ("name", "text", "files", "reached"),
    [
        (
            "jest.setup.js",
            "require('./helpers/fake')\n",
            {"helpers/fake.js": ""},
            "helpers/fake.js",
        ),
        ("web/jest.setup.js", "import x from '../lib/x'\n", {"lib/x.ts": ""}, "lib/x.ts"),
        ("jest.setup.js", "import './pkg'\n", {"pkg/index.js": ""}, "pkg/index.js"),
        (
            "vitest.config.ts",
            "setupFiles: ['./setup/run.ts']",
            {"setup/run.ts": ""},
            "setup/run.ts",
        ),
        ("jest.config.js", "setupFiles: ['<rootDir>/s.js']", {"s.js": ""}, "s.js"),
        ("jest.config.js", "// it's ['./s.js']", {"s.js": ""}, "s.js"),
        ("jest.config.js", "t: ['a\\\\b', './s.js']", {"s.js": ""}, "s.js"),
        ("jest.config.js", "// a ` tick\nsetupFiles: ['./s.js']", {"s.js": ""}, "s.js"),
        ("package.json", '{"jest": {"setupFiles": ["./s.js"]}}', {"s.js": ""}, "s.js"),
        (
            "pytest.ini",
            "[pytest]\naddopts = -p plug.force\n",
            {"plug/force.py": ""},
            "plug/force.py",
        ),
    ],
)
def test_js_and_config_forms_reach_the_file(
    tmp_path: Path, name: str, text: str, files: dict[str, str], reached: str
) -> None:
    root = same(tmp_path, {name: text, **files})
    found = scan_one(root, [reached])
    assert found.paths == (reached,)


def test_package_json_main_is_not_harness(tmp_path: Path) -> None:
    """The package's own entry point does not run the tests (only its jest key does)."""
    root = same(tmp_path, {"package.json": '{"main": "./calc.js", "name": "calc"}', "calc.js": ""})
    assert scan_one(root, ["calc.js"]).paths == ()


def test_symlink_to_a_harness_file_is_harness(tmp_path: Path) -> None:
    root = same(tmp_path, {"conftest.py": ""}, {"plugin.py": "conftest.py"})
    found = scan_one(root, ["plugin.py"])
    assert found.paths == ("plugin.py",)
    assert "a symlink to conftest.py" in found.notes[0]


def test_harness_file_that_is_a_symlink_makes_its_target_harness(tmp_path: Path) -> None:
    root = same(tmp_path, {"support/hooks.py": "import helper\n", "helper.py": ""})
    os.symlink("support/hooks.py", root / "conftest.py")
    found = scan_one(root, ["support/hooks.py", "helper.py"])
    assert found.paths == ("helper.py", "support/hooks.py")


def test_symlink_chain_and_folder_link(tmp_path: Path) -> None:
    root = same(
        tmp_path,
        {"tests/conftest.py": ""},
        {"a.py": "b.py", "b.py": "tests/conftest.py", "mirror": "tests"},
    )
    found = scan_one(root, ["a.py", "mirror"])
    assert found.paths == ("a.py", "mirror")


def test_link_loop_and_escape_resolve_to_nothing(tmp_path: Path) -> None:
    root = same(tmp_path, {}, {"x": "y", "y": "x", "out": "../elsewhere"})
    walked = hc.walk(root)
    assert hc.resolve(walked, "x") is None
    assert hc.resolve(walked, "out") is None


def test_renamed_conftest_new_name_is_harness(tmp_path: Path) -> None:
    root = same(tmp_path, {"support.py": ""})
    found = scan_one(root, ["conftest.py", "support.py"], [("conftest.py", "support.py")])
    assert found.paths == ("conftest.py", "support.py")
    assert "renamed from conftest.py" in found.notes[0]


def test_renamed_closure_module_is_harness(tmp_path: Path) -> None:
    base = tree(tmp_path / "base", {"conftest.py": "import helper\n", "helper.py": ""})
    after = tree(tmp_path / "after", {"conftest.py": "import helper\n", "fixtures.py": ""})
    found = hc.scan(base, after, ["fixtures.py", "helper.py"], [("helper.py", "fixtures.py")])
    assert found.paths == ("fixtures.py", "helper.py")


def test_base_conftest_reaching_a_file_only_head_has(tmp_path: Path) -> None:
    base = tree(
        tmp_path / "base",
        {"conftest.py": "try:\n    import helper\nexcept ImportError:\n    pass\n"},
    )
    after = tree(
        tmp_path / "after",
        {"conftest.py": base.joinpath("conftest.py").read_text(), "helper.py": ""},
    )
    assert hc.scan(base, after, ["helper.py"]).paths == ("helper.py",)


def test_closure_cap_is_a_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hc, "MAX_CLOSURE_FILES", 3)
    files = {f"m{i}.py": f"import m{i + 1}\n" for i in range(10)}
    root = same(tmp_path, {"conftest.py": "import m0\n", **files})
    found = scan_one(root, [])
    assert found.capped
    assert any("stopped" in r for r in found.reasons(strict_harness=True))


def test_big_file_is_scanned_in_part_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hc, "MAX_SCAN_BYTES", 64)
    root = same(tmp_path, {"conftest.py": "#" * 100 + "\nimport helper\n", "helper.py": ""})
    found = scan_one(root, ["helper.py"])
    assert any("scanned in part" in c for c in found.capped)


def test_walk_cap_is_a_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hc, "MAX_WALK_ENTRIES", 2)
    root = same(tmp_path, {"a.py": "", "b.py": "", "c.py": ""})
    assert scan_one(root, []).capped


def test_empty_folder_is_an_empty_submodule_reason(tmp_path: Path) -> None:
    root = same(tmp_path, {"calc.py": ""})
    (root / "vendor" / "lib").mkdir(parents=True)
    found = scan_one(root, [])
    assert found.empty_submodules == ("vendor/lib",)
    for strict in (False, True):
        assert any("vendor/lib" in r and "submodule" in r for r in found.reasons(strict))


def test_notes_drop_under_strict_harness(tmp_path: Path) -> None:
    root = same(tmp_path, {"conftest.py": "import helper\n", "helper.py": ""})
    found = scan_one(root, ["helper.py"])
    assert found.reasons(strict_harness=False) == list(found.notes)
    assert found.reasons(strict_harness=True) == []


def test_an_entry_point_plugin_in_a_dist_info_folder_is_harness(tmp_path: Path) -> None:
    # pytest loads pytest11 entry points of any distribution on sys.path, the tree's too
    root = same(
        tmp_path,
        {
            "evil-1.0.dist-info/entry_points.txt": "[pytest11]\nforce = plugins.force:main\n",
            "plugins/__init__.py": "",
            "plugins/force.py": "",
            "plugins/other.py": "",
        },
    )
    assert scan_one(root, ["plugins/force.py", "plugins/other.py"]).paths == ("plugins/force.py",)


@pytest.mark.parametrize(
    ("entry_points", "reached"),
    [
        # Markdown's groups: a script and its own extensions, which pytest never loads
        (
            "[console_scripts]\nmd = plugins.other:run\n\n"
            "[markdown.extensions]\nabbr = plugins.other:Abbr\n",
            (),
        ),
        (
            "[markdown.extensions]\nabbr = plugins.other:Abbr\n[pytest11]\nforce = plugins.force\n",
            ("plugins/force.py",),
        ),
        # every spelling importlib.metadata reads as pytest11, and looser ones
        ("[[pytest11]]\nforce = plugins.force:main\n", ("plugins/force.py",)),
        ("[ PyTest11 ]\nforce = plugins.force:main\n", ("plugins/force.py",)),
        ("[other]\u2028[pytest11]\nforce = plugins.force:main\n", ("plugins/force.py",)),
        ("[other]\r[pytest11]\nforce = plugins.force:main\n", ("plugins/force.py",)),
        # before any group, or text that is not UTF-8: every entry
        ("force = plugins.force:main\n[other]\nx = plugins.other\n", ("plugins/force.py",)),
        (b"[other]\xff\nforce = plugins.force:main\n", ("plugins/force.py",)),
    ],
)
def test_only_the_pytest11_group_of_entry_points_is_harness(
    tmp_path: Path, entry_points: str | bytes, reached: tuple[str, ...]
) -> None:
    root = same(
        tmp_path, {"plugins/__init__.py": "", "plugins/force.py": "", "plugins/other.py": ""}
    )
    target = root / "evil-1.0.dist-info" / "entry_points.txt"
    target.parent.mkdir()
    data = entry_points if isinstance(entry_points, bytes) else entry_points.encode()
    target.write_bytes(data)
    assert scan_one(root, ["plugins/force.py", "plugins/other.py"]).paths == reached


def test_a_module_the_tests_import_is_not_harness_and_one_they_do_not_is(tmp_path: Path) -> None:
    root = same(
        tmp_path,
        {
            "tests/conftest.py": "import calc\nimport hooks\n",
            "tests/test_calc.py": "from calc import add\n",
            "calc.py": "import util\n",
            "util.py": "",
            "hooks.py": "",
        },
    )
    is_test = lambda p: p.startswith("tests/")  # noqa: E731
    found = hc.scan(root, root, ["calc.py", "util.py", "hooks.py"], [], is_test)
    # calc (and what it imports) is code under test; hooks only the conftest loads: harness
    assert found.paths == ("hooks.py",)
    # positive control: without the rule every module the conftest reaches is harness
    assert hc.scan(root, root, ["calc.py", "util.py", "hooks.py"], []).paths == (
        "calc.py",
        "hooks.py",
        "util.py",
    )


def test_the_runners_own_harness_reasons_join_the_scan(tmp_path: Path) -> None:
    """What a runner reads as harness from the files (``Runner.harness_paths``: go's TestMain
    file) is harness when the PR changes it, with the runner's why as the note."""
    root = tree(tmp_path, {"go.mod": "module m\n", "main_test.go": "package m\n", "a.go": ""})
    why = {"main_test.go": "a test file that defines TestMain"}
    found = hc.scan(root, root, ["main_test.go", "a.go"], [], None, why)
    assert found.paths == ("main_test.go",)
    assert found.notes == (
        "main_test.go judges the PR (a test file that defines TestMain): a harness file",
    )
    assert hc.scan(root, root, ["main_test.go"], []).paths == ()  # no runner: its name alone
