"""Run a hostile tree through ``verify-pr run`` (the real CLI, a real container) and record the
verdict for the table; the positive control is the same tree under a plain command."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.conftest import require_docker
from tests.hostile.helpers import RECORD
from tests.integration.helpers import Run, verify_pr
from tests.sandbox_helpers import make_repo

NODE_IMAGE = os.environ.get("VPR_TEST_NODE_IMAGE", "verify-pr-node:local")
# The command verify-pr ran before issue 12: the working directory first on sys.path, the
# user site-packages (HOME=/work) on, and the tree's __pycache__ read.
PLAIN_PYTEST = "python3 -m pytest -p no:cacheprovider --junitxml={report} -o junit_family=xunit1"
FAILING_PYTEST = {"test_fails.py": "def test_fails():\n    assert False\n"}
FAILING_JEST = {
    "fails.test.js": "test('fails', () => { expect(1).toBe(2); });\n",
}
MARKER = "TREE-CODE-RAN"


def tree(tmp_path: Path, files: dict[str, str], binary: dict[str, bytes] | None = None) -> Path:
    repo = make_repo(tmp_path, files)
    for name, data in (binary or {}).items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for path in [repo, *repo.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return repo


def run(repo: Path, image: str, out: Path, *extra: str) -> Run:
    require_docker(image)
    result = verify_pr(repo, image, out, *extra)
    assert result.verdict, result.stderr
    return result


def plain_pytest(repo: Path, image: str, out: Path) -> Run:
    """The positive control: the same tree under the old, plain command."""
    return run(repo, image, out, "--command", PLAIN_PYTEST, "--report-format", "junit")


def output(result: Run, out: Path) -> str:
    path = out / "output.txt"
    return path.read_text(errors="replace") if path.exists() else ""


def verdict(result: Run, wanted: str | tuple[str, ...], reason: str | None = None) -> None:
    """Assert the verdict (and a reason substring) and record it for the table."""
    v: dict[str, Any] = result.verdict
    allowed = (wanted,) if isinstance(wanted, str) else wanted
    reasons = "\n".join(v["reasons"])
    assert v["verdict"] in allowed, reasons
    assert v["verdict"] != "PASS" or "PASS" in allowed
    if reason is not None:
        assert reason in reasons, reasons
    shown = f"{v['verdict']}" + (f", reason names {reason[:60]!r}" if reason else "")
    RECORD.append(("outcome", shown))


def counts(result: Run) -> tuple[int, int, int, int, int] | None:
    t = result.verdict.get("totals")
    return None if t is None else (t["total"], t["passed"], t["failed"], t["error"], t["skipped"])
