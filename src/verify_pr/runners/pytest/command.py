"""pytest's command line: the interpreter's flags and the bootstrap that runs pytest."""

from __future__ import annotations

from verify_pr.reports.junit import EXPECTED_FAILURE_PROPERTY
from verify_pr.runners.base import COLLECTED_MARKED

# The interpreter never lets the tree stand in for the runner or its modules by name:
# -P keeps the working directory off sys.path (pytest puts the rootdir there itself, by its
# import mode, once it is running); -s ignores the user site-packages, which HOME=/work would
# put inside the tree (a .pth there runs at startup); -B writes nothing back. With nothing of
# the tree on sys.path at startup (no src layout's PYTHONPATH), pytest and the standard library
# load from the image's own caches, compiled when the image was made (a pycache prefix from the
# start made every run compile them again: about 0.45 s of one core per run).
PYTHON_IMAGE_CACHES = "python3 -P -s -B"
# No bytecode cache of the tree is ever read (an unchecked-hash .pyc would run instead of its
# source). Before the working directory goes on the path, the bootstraps below set this prefix
# (from then on this process reads no cache of the tree: a module's, a conftest's, pytest's
# rewritten tests'; both ask ``sys.pycache_prefix`` at each import) and remove every
# __pycache__ of the tree: an interpreter a test starts gets no prefix (multiprocessing's spawn
# passes no -X pycache_prefix; a test's own python3 has flags of its choosing), and a cache the
# PR commits (a checked hash-based .pyc claiming head's source hash) would run instead of head's
# source there, beside head's source only. Caches only: nothing a tree means is lost, and both
# sides of a compare lose the same. A src layout's src/ is on the path from the start: there
# the prefix is set from the start too (PYTHON).
PYCACHE_PREFIX = "/tmp/vpr-pycache"  # noqa: S108 (the container's own /tmp, empty at start)
PYTHON = f"{PYTHON_IMAGE_CACHES} -X pycache_prefix={PYCACHE_PREFIX}"
_TREE_ON_PATH = (
    "import shutil; [os.unlink(c) if os.path.islink(c) or not os.path.isdir(c) "
    "else shutil.rmtree(c) for d, _, _ in os.walk(os.getcwd()) "
    'for c in [os.path.join(d, "__pycache__")] if os.path.lexists(c)]; '
    f'sys.pycache_prefix = "{PYCACHE_PREFIX}"; '
    "sys.path.insert(0, os.getcwd())"
)
# `python3 -m pytest` with the working directory put first on sys.path only once pytest and
# what it imports at startup are loaded (the image's): the tests then import the tree's own
# top-level packages, as under `python3 -m pytest`, and the runner is still the image's.
# One plugin rides along: JUnit XML writes a non-strict XPASS as a plain pass, so every test
# pytest handled as xfail (xfailed or xpassed) gets EXPECTED_FAILURE_PROPERTY on its testcase:
# the id is noted when its setup or call report carries ``wasxfail``, and the property added to
# its teardown report before junitxml (tryfirst) writes that report's properties.
_MARK_XFAIL = (  # double quotes only: the command puts this code in single quotes
    "m = set(); h = lambda report: "
    '(report.when != "teardown" and hasattr(report, "wasxfail") and m.add(report.nodeid)) '
    'or (report.when == "teardown" and report.nodeid in m and report.user_properties.append('
    f'("{EXPECTED_FAILURE_PROPERTY}", "true"))); '
    'p = types.ModuleType("verify_pr_xfail"); '
    "p.pytest_runtest_logreport = pytest.hookimpl(tryfirst=True)(h)"
)
PYTEST_MAIN = (
    f"import os, sys, types, pytest; {_MARK_XFAIL}; {_TREE_ON_PATH}; "
    "sys.exit(pytest.main(plugins=[p]))"
)
# Base's own collection (``verify.pairing.base_own``): the same command with
# ``--collect-only``, and a plugin that, once collection has finished, hands junitxml one
# skipped result per collected item, built from the item itself: the report's testcases are
# then named exactly as a run of those items names them (junitxml forms the ids), and
# collection errors are written as in a run. The skip's message says what it is: collected, not run,
# with ``COLLECTED_MARKED`` after it where the item carries a skip, skipif or xfail mark, or
# unittest's skip on its function or class (what pytest itself reads to skip it; a skipif's
# condition is not weighed: the mark is enough for a guess that only widens a run).
COLLECTED_MESSAGE = "verify-pr: collected, not run"
_COLLECTED = (  # double quotes only, as _MARK_XFAIL
    "import _pytest.reports; R = _pytest.reports.TestReport; "
    'k = lambda i: any(m.name in ("skip", "skipif", "xfail") for m in i.iter_markers()) '
    'or any(getattr(getattr(i, a, None), "__unittest_skip__", False) is True '
    'for a in ("obj", "cls")); '
    "f = lambda session: [session.config.hook.pytest_runtest_logreport(report=R(nodeid=i.nodeid, "
    "location=i.location, keywords={}, outcome=o, longrepr=l, when=w)) for i in session.items "
    f'for (o, l, w) in (("skipped", (i.location[0], 1, "{COLLECTED_MESSAGE}" + '
    f'("{COLLECTED_MARKED}" if k(i) else "")), "setup"), '
    '("passed", None, "teardown"))]; '
    'c = types.ModuleType("verify_pr_collect"); c.pytest_collection_finish = f'
)
PYTEST_COLLECT_MAIN = (
    f"import os, sys, types, pytest; {_MARK_XFAIL}; {_COLLECTED}; {_TREE_ON_PATH}; "
    "sys.exit(pytest.main(plugins=[p, c]))"
)
