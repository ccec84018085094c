"""The sandbox's public entry: validate, launch, classify, and return a typed result."""

from __future__ import annotations

import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from verify_pr.errors import SandboxBlocked
from verify_pr.sandbox.policy import LABEL_OWNER, LABEL_RUN, SandboxPolicy
from verify_pr.sandbox.resources import DEFAULT_RESOURCES, Resources

if TYPE_CHECKING:
    from verify_pr.models.sandbox import SandboxResult
    from verify_pr.sandbox.engine import EngineSettings
    from verify_pr.sandbox.spool import ReportSpool

# The result models need pydantic, whose import costs more than a short check runs: it is
# imported on a thread while the container is created and runs (the main thread then waits on
# the daemon). Started only once the Docker SDK is imported: both imports are CPU work under one
# GIL, so starting earlier only makes them take turns.
_MODELS = "verify_pr.models.sandbox"


def _prewarm_models() -> threading.Thread:
    import importlib

    thread = threading.Thread(target=importlib.import_module, args=(_MODELS,), daemon=True)
    thread.start()
    return thread


@dataclass(frozen=True)
class SandboxRequest:
    """A validated request (see :mod:`verify_pr.sandbox.cli` for the checks)."""

    repo: Path
    command: str
    image: str
    timeout_s: int
    max_output: int
    report_path: str | None = None
    resources: Resources = DEFAULT_RESOURCES
    coverage_path: str | None = None  # docs/coverage.md: returned as coverage.txt


@dataclass(frozen=True)
class SandboxRun:
    result: SandboxResult
    output: bytes
    report: ReportSpool | None  # on disk: a report can be up to MAX_REPORT_BYTES
    coverage: ReportSpool | None = None  # the coverage data, when asked for and returned


def make_policy(request: SandboxRequest, path_env: str, run_id: str) -> SandboxPolicy:
    return SandboxPolicy(
        image=request.image,
        repo=str(request.repo),
        command=request.command,
        timeout_s=request.timeout_s,
        max_output=request.max_output,
        report_path=request.report_path,
        coverage_path=request.coverage_path,
        path_env=path_env,
        memory=request.resources.memory,
        nano_cpus=request.resources.nano_cpus,
        name=f"verify-pr-{run_id}",
        labels={LABEL_RUN: run_id, LABEL_OWNER: f"{os.uname().nodename}:{os.getpid()}"},
    )


PolicyFactory = Callable[[SandboxRequest, str, str], SandboxPolicy]


def new_run_id() -> str:
    return secrets.token_hex(8)


def blocked_result(request: SandboxRequest, exc: SandboxBlocked) -> SandboxRun:
    from verify_pr.models.sandbox import ReportStatus, RunStatus, SandboxResult

    report = ReportStatus.UNKNOWN if request.report_path else ReportStatus.NOT_REQUESTED
    coverage = ReportStatus.UNKNOWN if request.coverage_path else ReportStatus.NOT_REQUESTED
    result = SandboxResult(
        status=RunStatus.BLOCKED,
        exit_code=None,
        output_truncated=False,
        detail=_bounded(exc.diagnostics()),
        image=request.image,
        timeout_s=request.timeout_s,
        report=report,
        coverage=coverage,
        cpus=request.resources.cpus,
        memory_bytes=request.resources.memory_bytes,
    )
    return SandboxRun(result, b"", None)


def run_sandbox(
    request: SandboxRequest,
    settings: EngineSettings | None = None,
    *,
    run_id: str | None = None,
    policy_for: PolicyFactory = make_policy,
) -> SandboxRun:
    """Run one check. Raises InputRefused for an unusable image; BLOCKED comes back as a result.

    ``settings`` (the engine's nonce, grace periods and kill client), ``run_id`` (which names
    the container) and ``policy_for`` (request, image PATH, run id -> policy) default to the
    shipped ones; tests pass their own.
    """
    from verify_pr.sandbox import cancel
    from verify_pr.sandbox.docker_api import docker_api
    from verify_pr.sandbox.engine import run_container
    from verify_pr.sandbox.image_check import check_image_env
    from verify_pr.sandbox.reaper import reap_orphans

    cancel.check()  # a cancelled run starts no sandbox (``cancel``: Cancelled passes through)
    started = time.monotonic()
    try:
        with docker_api() as api:
            _prewarm_models()
            reap_orphans(api)  # containers of runners that died (SIGKILL) before cleaning up
            image = api.inspect_image(request.image)
            image_env = check_image_env(image.get("Config") or {})
            policy = policy_for(request, image_env.path, run_id or new_run_id())
            engine_run = run_container(api, policy, settings)
    except SandboxBlocked as exc:
        return blocked_result(request, exc)
    from verify_pr.models.sandbox import CheckEnvironment, SandboxResult
    from verify_pr.sandbox.image_check import CHECK_VARIABLES
    from verify_pr.sandbox.outcome import classify

    outcome = classify(
        engine_run,
        request.timeout_s,
        request.max_output,
        request.report_path is not None,
        coverage_asked=request.coverage_path is not None,
    )
    result = SandboxResult(
        status=outcome.status,
        exit_code=outcome.exit_code,
        output_truncated=outcome.output_truncated,
        detail=_bounded(outcome.detail),
        image=request.image,
        timeout_s=request.timeout_s,
        image_id=str(image.get("Id", ""))[:80] or None,
        report=outcome.report_status,
        coverage=outcome.coverage_status,
        duration_s=round(time.monotonic() - started, 3),
        cpus=request.resources.cpus,
        memory_bytes=request.resources.memory_bytes,
        # the container's environment holds what the wrapper passes on (wrapper.sh's env -i)
        environment=CheckEnvironment(
            passed={k: policy.environment[k] for k in CHECK_VARIABLES},
            scrubbed=image_env.scrubbed,
        ),
    )
    return SandboxRun(result, outcome.output, outcome.report, outcome.coverage)


def _bounded(text: str) -> str:
    from verify_pr.models.sandbox import DETAIL_MAX_CHARS

    return text if len(text) <= DETAIL_MAX_CHARS else text[: DETAIL_MAX_CHARS - 1] + "…"
