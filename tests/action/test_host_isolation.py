"""The host never runs the PR's files: every Python the actions start ignores the checkout.

The checkout (the verify job's workspace; on a self-hosted runner that reuses workspaces, the
publish job's too) holds a shadow package for every module name a host process could import
(tests/action/shadow_tree.py), each writing a marker when imported. Every ``run:`` step of
both action.yml files runs under the simulated runner:

- as the runner runs it (the step's ``working-directory``, the workspace otherwise): no marker;
- with every step forced into the shadow tree, so the isolation flags (``-I``) alone must hold:
  no marker;
- positive control: the same steps from a copy of the action with the isolation taken out
  (no ``-I``, no ``working-directory``), forced into the shadow tree: every Python step leaves
  markers, so the probe works and the two runs above would have seen an import.

The reusable workflows run these same actions (checked in ``test_reusable_workflows_run_only_
the_actions``), so their host steps are the ones proven here.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.action.helpers import (
    FORK_REPO_ID,
    HEAD_SHA,
    PUBLISH_ACTION,
    ROOT,
    RUN_ID,
    VERIFY_ACTION,
    WORKFLOWS,
    load,
    workflow_run_event,
    write_json,
    zip_folder,
)
from tests.action.isolation_helpers import strip_isolation
from tests.action.runner_sim import Job, StepResult, run_composite
from tests.action.shadow_tree import markers, plant_shadows
from tests.conftest import require_docker
from tests.github_fake.server import FakeGitHub

PYTHON_IMAGE = "verify-pr-python:local"
FIXTURE = ROOT / "tests" / "fixtures" / "projects" / "pytest" / "pass"
INSTALL = "Install verify-pr (hash-checked, isolated)"
PULL = "Pull the digest-pinned image"
BUILD = "Build the test image from the base commit"
VERIFY = "Verify the pull request in the sandbox"
PUBLISH = "Publish the check run"
PYTHON_STEPS = {
    VERIFY_ACTION: (INSTALL, PULL, BUILD, VERIFY),
    PUBLISH_ACTION: (INSTALL, PUBLISH),
}

pytestmark = [pytest.mark.docker, pytest.mark.slow]


class Probe:
    """The hostile workspace, and the markers each step left."""

    def __init__(self, root: Path) -> None:
        self.marker = root / "markers.txt"
        self.workspace = root / "workspace"
        shutil.copytree(FIXTURE, self.workspace, ignore=shutil.ignore_patterns("__pycache__"))
        self.names = plant_shadows(self.workspace, self.marker)
        subprocess.run(["chmod", "-R", "o+rX", str(self.workspace)], check=True)
        self.by_step: dict[str, list[str]] = {}
        self._seen = 0

    def after_step(self, step: StepResult) -> None:
        found = markers(self.marker)
        self.by_step.setdefault(step.name, []).extend(found[self._seen :])
        self._seen = len(found)


def _verify_job(root: Path, probe: Probe) -> Job:
    pr_event = write_json(root / "pull_request.json", {"action": "opened"})
    return Job.create(
        root / "verify-job",
        {
            "GITHUB_WORKSPACE": str(probe.workspace),
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(pr_event),
            "GITHUB_REPOSITORY": "Codertocat/Hello-World",
            "GITHUB_RUN_ID": str(RUN_ID),
        },
    )


def _publish_job(root: Path, probe: Probe, fake: FakeGitHub, event: dict[str, Any]) -> Job:
    event_path = write_json(root / "workflow_run.json", event)
    return Job.create(
        root / "publish-job",
        {
            # a self-hosted runner reusing the workspace: the PR's files are still there
            "GITHUB_WORKSPACE": str(probe.workspace),
            "GITHUB_EVENT_NAME": "workflow_run",
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": event["repository"]["full_name"],
            "GITHUB_API_URL": fake.base_url,
        },
    )


def _serve_artifact(fake: FakeGitHub, artifact: bytes) -> None:
    fake.add_artifact(RUN_ID, "verify-pr-result", artifact, head_sha=HEAD_SHA)
    fake.pulls.append((1347, "octo-org:fix-bug", HEAD_SHA, FORK_REPO_ID))
    fake.pull_files[1347] = ["test_ok.py"]
    fake.trees[HEAD_SHA] = ["test_ok.py"]


def _no_uses(uses: str, _with: dict[str, str]) -> None:
    raise AssertionError(f"the publish action must not use {uses}")


# A local tag with pull-image-digest: the check-pull step runs, refuses it and says why, and so
# does the build step (a digest pull and a build exclude each other), after each has started
# its interpreter and imported all it imports; the other steps run on (keep_going) so one job
# reaches every step.
VERIFY_INPUTS = {
    "image": PYTHON_IMAGE,
    "runner": "pytest",
    "timeout": "120",
    "pull-image-digest": "true",
    "build-dockerfile": "ci/tests.Dockerfile",
}


def _run_both_actions(
    tmp_path: Path,
    fake: FakeGitHub,
    webhook_payload: Callable[..., dict[str, Any]],
    *,
    force_cwd: bool,
) -> tuple[Probe, Job, Job]:
    probe = Probe(tmp_path)
    cwd = probe.workspace if force_cwd else None
    verify_job = _verify_job(tmp_path, probe)
    uploaded: list[bytes] = []

    def upload(uses: str, with_: dict[str, str]) -> None:
        assert uses.startswith("actions/upload-artifact@"), uses
        uploaded.append(zip_folder(Path(with_["path"])))

    outputs, steps = run_composite(
        VERIFY_ACTION,
        verify_job,
        VERIFY_INPUTS,
        upload,
        force_cwd=cwd,
        keep_going=True,
        after_step=probe.after_step,
    )
    log = "\n".join(verify_job.log)
    ran = {s.name: s for s in steps if s.ran}
    assert set(PYTHON_STEPS[VERIFY_ACTION]) <= set(ran), log
    assert ran[INSTALL].returncode == 0, log
    # the refusal reaches the log even though the step captures stdout with $(...)
    assert ran[PULL].returncode == 2, log
    assert "pull-image-digest needs a digest-pinned image" in log
    assert ran[BUILD].returncode == 2, log
    assert "leave pull-image-digest false" in log
    assert ran[VERIFY].returncode == 0, log
    assert outputs["verdict"] in ("PASS", "FAIL", "NOT_PROVEN"), log
    assert len(uploaded) == 1, log

    _serve_artifact(fake, uploaded[0])
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
    publish_job = _publish_job(tmp_path, probe, fake, event)
    _, publish_steps = run_composite(
        PUBLISH_ACTION, publish_job, {}, _no_uses, force_cwd=cwd, after_step=probe.after_step
    )
    publish_log = "\n".join(publish_job.log)
    assert [s.returncode for s in publish_steps] == [0, 0], publish_log
    assert len(fake.check_runs) == 1, publish_log
    return probe, verify_job, publish_job


def test_steps_as_the_runner_runs_them_import_nothing_from_the_checkout(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    require_docker(PYTHON_IMAGE)
    probe, _, _ = _run_both_actions(tmp_path, github_fake, webhook_payload, force_cwd=False)
    assert len(probe.names) > 300  # the stdlib alone has more
    assert markers(probe.marker) == [], probe.by_step


def test_isolation_flags_alone_hold_in_the_checkout(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    """Every step forced into the shadow tree: -I must keep each Python out of it."""
    require_docker(PYTHON_IMAGE)
    probe, _, _ = _run_both_actions(tmp_path, github_fake, webhook_payload, force_cwd=True)
    assert markers(probe.marker) == [], probe.by_step


def test_positive_control_without_isolation_every_python_step_imports_the_checkout(
    tmp_path: Path, github_fake: FakeGitHub, webhook_payload: Callable[..., dict[str, Any]]
) -> None:
    require_docker(PYTHON_IMAGE)
    probe = Probe(tmp_path)
    bare = strip_isolation(tmp_path / "bare-action")
    job = _verify_job(tmp_path, probe)
    event = workflow_run_event(webhook_payload("workflow_run", "completed"))
    publish_job = _publish_job(tmp_path, probe, github_fake, event)
    for real, job_ in ((VERIFY_ACTION, job), (PUBLISH_ACTION, publish_job)):
        stripped = bare / real.relative_to(ROOT)
        others = (*(s for s in PYTHON_STEPS[real] if s != INSTALL), "Conclude")
        # the stripped install step imports the shadows (and installs nothing) ...
        run_composite(
            stripped,
            job_,
            VERIFY_INPUTS if real == VERIFY_ACTION else {},
            lambda *_: None,
            force_cwd=probe.workspace,
            keep_going=True,
            skip=others,
            after_step=probe.after_step,
        )
        assert probe.by_step.pop(INSTALL), "the stripped install step imported no shadow"
        # ... so the real one installs, and the other stripped steps run in its venv
        inputs = {"image": PYTHON_IMAGE} if real == VERIFY_ACTION else {}
        run_composite(real, job_, inputs, lambda *_: None, skip=others)
        run_composite(
            stripped,
            job_,
            VERIFY_INPUTS if real == VERIFY_ACTION else {},
            lambda *_: None,
            force_cwd=probe.workspace,
            keep_going=True,
            skip=(INSTALL,),
            after_step=probe.after_step,
        )
        for step in PYTHON_STEPS[real][1:]:
            assert probe.by_step.get(step), (step, probe.by_step)


def test_every_run_step_leaves_the_workspace() -> None:
    """Statically: each run: step of both actions sets working-directory to runner.temp."""
    for action in (VERIFY_ACTION, PUBLISH_ACTION):
        for step in load(action)["runs"]["steps"]:
            if "run" in step:
                assert step.get("working-directory") == "${{ runner.temp }}", step.get("name")


def test_every_host_python_runs_isolated() -> None:
    """Statically: every python invocation in the shipped host scripts carries -I."""
    # what the host runs: the run: scripts of both actions (not their descriptions) and the
    # scripts those start
    texts = {
        f"{action.parent.name}/{step.get('name')}": step["run"]
        for action in (VERIFY_ACTION, PUBLISH_ACTION)
        for step in load(action)["runs"]["steps"]
        if "run" in step
    }
    for script in (ROOT / "entrypoint", ROOT / "scripts" / "action_install.sh"):
        texts[script.name] = script.read_text(encoding="utf-8")
    invocation = re.compile(r'(python3?"?|\$python"|\$\{[A-Z_]*PYTHON[^}]*\}"?)\s+(-\S+)')
    found = 0
    for where, text in texts.items():
        for match in invocation.finditer(text):
            found += 1
            assert match.group(2) == "-I", (where, match.group(0))
    assert found >= 6
    action_py = (ROOT / "src" / "verify_pr" / "action" / "commands.py").read_text(encoding="utf-8")
    assert 'sys.executable, "-m"' not in action_py
    assert 'HOST_PYTHON = (sys.executable, "-I", "-m")' in action_py


def test_reusable_workflows_run_only_the_actions() -> None:
    """The reusable workflows' host steps are the actions' own: they add no run: step."""
    reusable = [w for w in WORKFLOWS if "workflow_call" in (load(w).get(True) or load(w)["on"])]
    assert reusable
    for workflow in reusable:
        for job in load(workflow)["jobs"].values():
            assert all("run" not in step for step in job.get("steps", [])), workflow.name
