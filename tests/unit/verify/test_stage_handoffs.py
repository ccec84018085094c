"""The stages' hand-offs of one compare (``compare_run.run_compare`` calls them in order):
the split (``split.changed``), what --strict-harness takes from base (``harness.strict``)
and the trees built from both (``trees.sides``)."""

from __future__ import annotations

from pathlib import Path

from verify_pr.verify.harness.closure import HarnessScan
from verify_pr.verify.harness.strict import Harness, named_only
from verify_pr.verify.split.changed import split_change
from verify_pr.verify.trees import sides
from verify_pr.verify.trees.export import Context, Exported


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_split_judges_each_changed_path_once(tmp_path: Path) -> None:
    base = _write(tmp_path / "base", {"calc.py": "a", "tests/test_calc.py": "t"})
    changed = ["calc.py", "README.md", "tests/test_calc.py", "tests/test_new.py"]
    paths = split_change(base, changed, None)
    assert paths.code == ("calc.py",)
    assert paths.shared == ("README.md", "tests/test_calc.py", "tests/test_new.py")
    assert paths.tests == ("tests/test_calc.py", "tests/test_new.py")
    assert paths.others == ("README.md",)
    assert paths.edited == ("tests/test_calc.py",)  # base has it: the PR edits a test of base
    judged = paths.judged()
    assert (
        judged.tests == paths.shared
        and judged.late_tests == ()
        and judged.changed == tuple(changed)
    )


def test_a_moved_path_joins_the_test_side_and_is_edited_only_where_base_has_it(
    tmp_path: Path,
) -> None:
    base = _write(tmp_path / "base", {"calc.py": "a", "tests/test_calc.py": "t"})
    paths = split_change(base, ["calc.py", "new.py", "tests/test_calc.py"], None)
    moved = paths.moving(("new.py", "calc.py"), base)
    assert moved.code == ()
    assert moved.shared == moved.tests == ("calc.py", "new.py", "tests/test_calc.py")
    assert moved.others == paths.others
    assert moved.edited == ("tests/test_calc.py", "calc.py")  # new.py is not base's
    assert moved.judged().late_tests == ("new.py", "calc.py")


def test_only_strict_takes_the_harness_files_from_base() -> None:
    scan = HarnessScan(paths=("conftest.py",), notes=("x judges the PR",))
    assert Harness(scan, strict=True).from_base == ("conftest.py",)
    assert Harness(scan, strict=False).from_base == ()
    assert named_only(["conftest.py", "a.py"], True).files == ("conftest.py",)


def _exported(tmp_path: Path) -> Exported:
    base = _write(tmp_path / "base", {"calc.py": "base", "conftest.py": "base", "t/test_a.py": "1"})
    after = _write(tmp_path / "after", {"calc.py": "pr", "conftest.py": "pr", "t/test_a.py": "2"})
    changed = ["calc.py", "conftest.py", "t/test_a.py"]
    return Exported(base, after, Context("b" * 40, "h" * 40), changed)


def test_the_trees_take_the_shared_paths_from_after_and_from_base_from_base(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    trees = sides.build(_exported(tmp_path), work, ["conftest.py", "t/test_a.py"], ["conftest.py"])
    assert (trees.before / "t/test_a.py").read_text() == "2"  # the PR's tests
    assert (trees.before / "calc.py").read_text() == "base"  # base's code
    assert (trees.before / "conftest.py").read_text() == "base"  # strict: base's harness
    assert (trees.after / "conftest.py").read_text() == "base"
    assert (trees.after / "calc.py").read_text() == "pr"
    assert len({trees.base, trees.before, trees.after}) == 3


def test_no_shared_path_runs_base_itself_once_and_a_move_rebuilds_before(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    trees = sides.build(_exported(tmp_path), work, [], [])
    assert trees.before == trees.base
    moved = trees.moving(["calc.py"], ["conftest.py"], work)
    assert moved.base == trees.base and moved.after == trees.after
    assert moved.before != trees.base and (trees.base / "calc.py").read_text() == "base"
    assert (moved.before / "calc.py").read_text() == "pr"
    assert (moved.before / "conftest.py").read_text() == "base"
