"""The test/code split read from base's config, and selecting one test by id."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from verify_pr.models.report import TestCase, TestStatus
from verify_pr.runners.registry import runner_named
from verify_pr.verify.runs.select import batch_selector, pytest_node_id, selector
from verify_pr.verify.split.testpaths import rule_for, split


@pytest.mark.parametrize(
    ("config", "path", "is_test"),
    [
        ("", "tests/test_x.py", True),
        ("", "test_x.py", True),
        ("", "pkg/x_test.py", True),
        ("", "pkg/conftest.py", True),
        ("", "tests/data/golden.txt", True),  # data under a test folder is a test change
        ("", "testing/helpers.py", True),
        ("", "src/pkg/core.py", False),
        ("", "pkg/testutils.py", False),
        ("", "check_x.py", False),
        ("[pytest]\npython_files = check_*.py\n", "check_x.py", True),
        ("[pytest]\npython_files = check_*.py\n", "src/test_y.py", False),
        ("[pytest]\ntestpaths = spec\n", "spec/golden.json", True),
        ("[pytest]\ntestpaths = . ../x /abs spec*\n", "src/core.py", False),  # never the repo
    ],
)
def test_pytest_rule_comes_from_base_config(
    tmp_path: Path, config: str, path: str, is_test: bool
) -> None:
    if config:
        (tmp_path / "pytest.ini").write_text(config)
    assert rule_for(tmp_path, runner_named("pytest")).is_test(path) is is_test


@pytest.mark.parametrize(
    ("metadata", "root_init", "path", "is_code"),
    [
        # testpaths names the project's own package (toolz): its modules are code
        ('[project]\nname = "toolz"\n', True, "toolz/itertoolz.py", True),
        ('[project]\nname = "Tool-Z"\n', True, "tool_z/core.py", True),
        # ... but its test files and test folders stay tests, its data is neither
        ('[project]\nname = "toolz"\n', True, "toolz/tests/test_x.py", False),
        ('[project]\nname = "toolz"\n', True, "toolz/tests/helpers.py", False),
        ('[project]\nname = "toolz"\n', True, "toolz/conftest.py", False),
        # any other folder there stays tests: a package of helpers, no metadata, no package
        ('[project]\nname = "calc"\n', True, "toolz/itertoolz.py", False),
        ("", True, "toolz/itertoolz.py", False),
        ('[project]\nname = "toolz"\n', False, "toolz/itertoolz.py", False),
    ],
)
def test_a_testpaths_entry_that_is_the_projects_package_holds_code(
    tmp_path: Path, metadata: str, root_init: bool, path: str, is_code: bool
) -> None:
    root = path.split("/")[0]
    (tmp_path / "pyproject.toml").write_text(
        metadata + f'[tool.pytest.ini_options]\ntestpaths = ["{root}"]\n'
    )
    (tmp_path / root).mkdir()
    if root_init:
        (tmp_path / root / "__init__.py").write_text("")
    rule = rule_for(tmp_path, runner_named("pytest"))
    assert rule.is_code(path) is is_code
    assert not rule.is_test(f"{root}/data.json") if is_code else True


def _shell(argv: tuple[str, ...] | None) -> str | None:
    """A selection as the shell sees it after the runner's command (``SuitePlan.command``)."""
    return None if argv is None else shlex.join(argv)


def test_the_package_from_setup_cfg_metadata(tmp_path: Path) -> None:
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nname = toolz\n[tool:pytest]\ntestpaths = toolz\n"
    )
    (tmp_path / "toolz").mkdir()
    (tmp_path / "toolz" / "__init__.py").write_text("")
    rule = rule_for(tmp_path, runner_named("pytest"))
    assert rule.is_code("toolz/itertoolz.py") and "not the packages toolz" in rule.describe()


@pytest.mark.parametrize(
    ("setup_py", "is_code"),
    [
        # WebOb 1.8: the name only in setup.py, testpaths = src/webob tests
        ("from setuptools import setup\nsetup(name='WebOb', version='1.8.8')\n", True),
        ("import setuptools\nsetuptools.setup(\n    name='webob',\n)\n", True),
        # no literal, not the package, not one name, not a call, not Python: stays tests
        ("from setuptools import setup\nNAME = 'webob'\nsetup(name=NAME)\n", False),
        ("from setuptools import setup\nsetup(name='calc')\n", False),
        ("setup(name='webob')\nsetup(name='calc')\n", False),
        ("# setup(name='webob')\nprint(\"setup(name='webob')\")\n", False),
        ("def setup(:\n    name='webob'\n", False),
        ("other(name='webob')\n", False),
    ],
)
def test_the_package_from_a_literal_name_in_setup_py(
    tmp_path: Path, setup_py: str, is_code: bool
) -> None:
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nlicense_file = LICENSE\n[tool:pytest]\ntestpaths =\n    src/webob\n    tests\n"
    )
    (tmp_path / "setup.py").write_text(setup_py)
    (tmp_path / "src" / "webob").mkdir(parents=True)
    (tmp_path / "src" / "webob" / "__init__.py").write_text("")
    rule = rule_for(tmp_path, runner_named("pytest"))
    assert rule.is_code("src/webob/response.py") is is_code
    assert rule.is_test("tests/test_response.py")


def test_metadata_names_win_over_setup_py(tmp_path: Path) -> None:
    """setup.py is read only when pyproject.toml and setup.cfg name no project."""
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nname = calc\n[tool:pytest]\ntestpaths = toolz\n"
    )
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='toolz')\n")
    (tmp_path / "toolz").mkdir()
    (tmp_path / "toolz" / "__init__.py").write_text("")
    assert rule_for(tmp_path, runner_named("pytest")).is_test("toolz/core.py")


def test_pyproject_table_and_split(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npython_files = ["spec_*.py"]\ntestpaths = ["checks"]\n'
    )
    rule = rule_for(tmp_path, runner_named("pytest"))
    assert rule.source == "pyproject.toml [tool.pytest.ini_options]"
    assert split(["a.py", "spec_a.py", "checks/x.bin"], rule) == (
        ["checks/x.bin", "spec_a.py"],
        ["a.py"],
    )
    assert "spec_*.py" in rule.describe() and "checks" in rule.describe()


@pytest.mark.parametrize(
    ("path", "is_test"),
    [
        ("src/a.test.ts", True),
        ("src/a.spec.js", True),
        ("src/__tests__/helper.js", True),
        ("src/__snapshots__/a.test.ts.snap", True),
        ("src/__mocks__/fs.js", True),
        ("test/fixtures/in.json", True),
        ("src/a.ts", False),
        ("jest.config.js", False),
    ],
)
def test_js_rule(tmp_path: Path, path: str, is_test: bool) -> None:
    for runner in ("jest", "vitest", "bun", "custom"):
        assert rule_for(tmp_path, runner_named(runner)).is_test(path) is is_test


def _case(name: str, classname: str | None, file: str | None) -> TestCase:
    return TestCase.build(
        name=name, classname=classname, file=file, line=1, status=TestStatus.FAILED
    )


def test_pytest_node_ids() -> None:
    assert pytest_node_id(_case("test_a[1-2]", "tests.test_x", "tests/test_x.py")) == (
        "tests/test_x.py::test_a[1-2]"
    )
    assert pytest_node_id(_case("test_b", "tests.test_x.TestK.Inner", "tests/test_x.py")) == (
        "tests/test_x.py::TestK::Inner::test_b"
    )
    assert pytest_node_id(_case("test_c", "other.mod", "tests/test_x.py")) is None
    assert pytest_node_id(_case("test_c", None, "tests/test_x.py")) is None
    # items of files that are not Python (pygments' golden files, text doctests)
    golden = _case("", "tests.examplefiles.ini.a-b.ini", "tests/examplefiles/ini/a-b.ini")
    assert pytest_node_id(golden) == "tests/examplefiles/ini/a-b.ini"
    doc = _case("README.txt", "docs.README.txt", "docs/README.txt")
    assert pytest_node_id(doc) == "docs/README.txt::README.txt"
    assert pytest_node_id(_case("", "other.a-b.ini", "tests/a-b.ini")) is None


def test_selectors_are_one_quoted_word_each() -> None:
    evil = _case("t'; rm -rf / #", "tests.test_x", "tests/test_x.py")
    assert (
        _shell(selector(runner_named("pytest"), evil)) == "'tests/test_x.py::t'\"'\"'; rm -rf / #'"
    )
    js = _case("adds (a+b)", "math > sum", "src/math.test.js")
    assert (
        _shell(selector(runner_named("jest"), js))
        == "-t '^math sum adds \\(a\\+b\\)$' -- 'src\\/math\\.test\\.js'"
    )
    assert _shell(selector(runner_named("vitest"), js)) == "src/math.test.js -t 'adds \\(a\\+b\\)$'"
    assert _shell(selector(None, js)) is None
    assert (
        _shell(selector(runner_named("pytest"), _case("t\\x1b", "m", "m.py"))) is None
    )  # an escaped name
    assert _shell(selector(runner_named("jest"), _case("t", None, "../x.test.js"))) is None


def test_parallelism_is_bounded_by_jobs_cores_and_memory() -> None:
    from verify_pr.sandbox.resources import DEFAULT_RESOURCES as default
    from verify_pr.verify.runs.parallel import parallelism

    assert parallelism(1, default, cores=2, available_bytes=64 << 30) == 1
    assert parallelism(3, default, cores=2, available_bytes=64 << 30) == 2  # two cores
    assert parallelism(3, default, cores=2, available_bytes=1 << 30) == 1  # memory for one
    assert parallelism(3, default, cores=2, available_bytes=0) == 1  # unknown: one at a time


def test_parallelism_counts_each_runs_cpus_and_memory() -> None:
    from verify_pr.sandbox.resources import DEFAULT_RESOURCES as default
    from verify_pr.sandbox.resources import Resources
    from verify_pr.verify.runs.parallel import parallelism

    room = {"cores": 4, "available_bytes": 64 << 30}
    assert parallelism(3, default, **room) == 3
    assert parallelism(3, Resources(nano_cpus=2 * 10**9), **room) == 2  # 4 cores / 2
    assert parallelism(3, Resources(nano_cpus=4 * 10**9), **room) == 1
    big = Resources(memory_mib=16 * 1024)  # 2 x 16 GiB each: 64 GiB holds two
    assert parallelism(3, big, **room) == 2


def test_whole_runs_started_together_share_the_cores_when_they_outnumber_them() -> None:
    from verify_pr.sandbox.resources import DEFAULT_RESOURCES as default
    from verify_pr.sandbox.resources import Resources
    from verify_pr.verify.runs.parallel import pool_width

    room = {"cores": 2, "available_bytes": 64 << 30}
    assert pool_width(3, default, **room) == 3  # before, head, base's own: all at once
    assert pool_width(2, default, **room) == 2
    assert pool_width(1, default, **room) == 2  # the re-runs still get both cores
    assert pool_width(3, default, cores=4, available_bytes=64 << 30) == 4
    assert pool_width(3, default, cores=2, available_bytes=2 << 30) == 2  # memory for two
    assert pool_width(3, default, cores=1, available_bytes=64 << 30) == 1  # one core: queue
    assert pool_width(3, Resources(nano_cpus=2 * 10**9), **room) == 1  # one run fills both
    assert pool_width(3, default, cores=2, available_bytes=0) == 1  # unknown memory


def test_the_pools_first_batch_runs_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # three jobs that each wait for the other two: they end only if all three run together
    import threading

    from verify_pr.sandbox.resources import DEFAULT_RESOURCES as default
    from verify_pr.verify.runs import parallel

    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    monkeypatch.setattr(parallel, "available_bytes", lambda: 64 << 30)
    barrier = threading.Barrier(3, timeout=10)

    def meet(n: int) -> int:
        if n <= 3:
            barrier.wait()
        return n

    with parallel.SandboxPool(meet, default) as pool:
        futures = pool.start([1, 2, 3])
        assert [f.result(timeout=20) for f in futures] == [1, 2, 3]
        assert pool.run_all([4, 5]) == [4, 5]
    # positive control: the same three jobs queued two at a time never meet
    barrier = threading.Barrier(3, timeout=1)
    with parallel.SandboxPool(meet, default) as pool:
        futures = pool.start([1, 2])
        futures.append(pool.submit(3))
        with pytest.raises(threading.BrokenBarrierError):
            futures[0].result(timeout=20)


def test_pool_keeps_job_order_and_reads_this_machine() -> None:
    from verify_pr.sandbox.resources import DEFAULT_RESOURCES as default
    from verify_pr.verify.runs.parallel import SandboxPool, available_bytes, usable_cores

    assert usable_cores() >= 1
    assert available_bytes() > 0  # /proc/meminfo is there on Linux
    with SandboxPool(lambda n: n * n, default) as pool:
        assert pool.run_all([3, 1, 2]) == [9, 1, 4]


def test_compare_cli_takes_cpus_and_memory(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    from verify_pr.verify import cli, compare_run
    from verify_pr.verify.settings import CompareSettings

    seen: list[CompareSettings] = []

    def stop(_request: compare_run.CompareRequest, settings: CompareSettings) -> None:
        seen.append(settings)
        raise SystemExit(0)

    monkeypatch.setattr(compare_run, "run_compare", stop)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    argv = ["compare", "--git", str(repo), "--base", "a" * 40, "--head", "b" * 40]
    argv += ["--image", "img:1", "--cpus", "2", "--memory", "2g", "--out", str(tmp_path / "o")]
    with pytest.raises(SystemExit):
        cli._main(argv)
    resources = seen[0].suite.limits.resources
    assert resources.cpus == 2 and resources.memory_mib == 2048
    assert cli.main([*argv[:-2], "--cpus", "100"]) == cli.EXIT_USAGE


def test_the_proof_runs_together_in_one_selector_each_test_quoted() -> None:
    a, b = (
        _case("t_a", "tests.test_x", "tests/test_x.py"),
        _case("t_b", "tests.test_y", "tests/test_y.py"),
    )
    assert (
        _shell(batch_selector(runner_named("pytest"), [a, b]))
        == "tests/test_x.py::t_a tests/test_y.py::t_b"
    )
    js1, js2 = (
        _case("adds (a+b)", "math sum", "src/m.test.js"),
        _case("subs", None, "src/m.test.js"),
    )
    assert _shell(batch_selector(runner_named("jest"), [js1, js2])) == (
        "-t '^(?:math sum adds \\(a\\+b\\)|subs)$' -- 'src\\/m\\.test\\.js'"
    )
    assert (
        _shell(batch_selector(runner_named("vitest"), [js1, js2]))
        == "src/m.test.js -t '(?:adds \\(a\\+b\\)|subs)$'"
    )
    # one test no selector can reach spoils the batch; none is no batch
    assert _shell(batch_selector(runner_named("pytest"), [a, _case("t\\x1b", "m", "m.py")])) is None
    assert _shell(batch_selector(None, [js1])) is None
    assert _shell(batch_selector(runner_named("pytest"), [])) is None


def test_pytest_s_own_escapes_in_a_parameter_id_are_selected_as_written() -> None:
    """pytest writes a non-ASCII parameter id escaped in the node id, and takes it so."""
    case = _case("test_x[\\xe9]", "tests.test_x", "tests/test_x.py")
    assert _shell(selector(runner_named("pytest"), case)) == "'tests/test_x.py::test_x[\\xe9]'"
    assert (
        _shell(selector(runner_named("pytest"), _case("t\\x1b[a]", "m", "m.py"))) is None
    )  # in the name itself
    assert (
        _shell(selector(runner_named("vitest"), _case("t[\\xe9]", None, "m.test.js"))) is None
    )  # ours, not vitest's
