"""The Rule of Two over every YAML file shipped: no job holds untrusted code and a token.

Verify side (the action, the verify workflows and examples): no token, no secret, no write
permission, checkout without persisted credentials. Publish side: no checkout, no local action
from the PR, only checks: write and actions: read. Everywhere: no pull_request_target, every
``uses:`` pinned by a full sha (or a local path), no ``${{`` inside a ``run:``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.action.helpers import (
    EXAMPLES,
    PUBLISH_ACTION,
    ROOT,
    SHIPPED,
    VERIFY_ACTION,
    WORKFLOWS,
    load,
)

PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[A-Za-z0-9_./-]+)?@[0-9a-f]{40}$")
PUBLISH_PERMISSIONS = {"checks": "write", "actions": "read"}
CHECKOUT = "actions/checkout@"


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _is_publish(path: Path) -> bool:
    return path == PUBLISH_ACTION or "publish" in path.name


def _steps(doc: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if "runs" in doc:
        yield from doc["runs"].get("steps", [])
    for job in (doc.get("jobs") or {}).values():
        yield from job.get("steps", [])


def _uses(doc: dict[str, Any]) -> Iterator[str]:
    for step in _steps(doc):
        if "uses" in step:
            yield step["uses"]
    for job in (doc.get("jobs") or {}).values():
        if "uses" in job:
            yield job["uses"]


def _triggers(doc: dict[str, Any]) -> set[str]:
    on = doc.get(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    if isinstance(on, str):
        return {on}
    if isinstance(on, list):
        return set(on)
    return set(on or {})


def _walk(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield str(key), value
            yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


def test_every_file_is_covered() -> None:
    assert len(WORKFLOWS) >= 4 and len(EXAMPLES) >= 2
    assert {p.name for p in WORKFLOWS} >= {"verify.yml", "publish.yml", "ci.yml"}


@pytest.mark.parametrize("path", SHIPPED, ids=_rel)
def test_no_pull_request_target(path: Path) -> None:
    assert "pull_request_target" not in _triggers(load(path))
    assert "pull_request_target" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", SHIPPED, ids=_rel)
def test_every_uses_is_sha_pinned(path: Path) -> None:
    for uses in _uses(load(path)):
        if uses.startswith("./"):
            continue
        assert PINNED.match(uses), f"{_rel(path)}: {uses} is not pinned by a full commit sha"


@pytest.mark.parametrize("path", SHIPPED, ids=_rel)
def test_no_expression_inside_run(path: Path) -> None:
    for step in _steps(load(path)):
        if "run" in step:
            assert "${{" not in step["run"], f"{_rel(path)}: {step.get('name')}"


@pytest.mark.parametrize("path", SHIPPED, ids=_rel)
def test_workflows_start_with_no_permission(path: Path) -> None:
    doc = load(path)
    if "jobs" in doc:
        assert doc.get("permissions") == {}, f"{_rel(path)}: top-level permissions: {{}}"
        for name, job in doc["jobs"].items():
            assert "permissions" in job, f"{_rel(path)}: job {name} sets no permissions"


def _verify_side() -> list[Path]:
    return [p for p in SHIPPED if not _is_publish(p)]


@pytest.mark.parametrize("path", _verify_side(), ids=_rel)
def test_verify_side_holds_no_token(path: Path) -> None:
    doc = load(path)
    text = path.read_text(encoding="utf-8")
    assert "secrets." not in text and "secrets:" not in text
    assert "github.token" not in text
    for key, value in _walk(doc):
        assert "token" not in key.lower(), f"{_rel(path)}: {key}"
        if key == "permissions" and isinstance(value, dict):
            for scope, level in value.items():
                assert level != "write", f"{_rel(path)}: {scope}: write"
                assert scope != "id-token", _rel(path)
    for step in _steps(doc):
        if str(step.get("uses", "")).startswith(CHECKOUT):
            assert step.get("with", {}).get("persist-credentials") is False, _rel(path)
    if path == VERIFY_ACTION:
        assert set(doc["inputs"]).isdisjoint({"token", "github-token"})


def _publish_side() -> list[Path]:
    return [p for p in SHIPPED if _is_publish(p)]


@pytest.mark.parametrize("path", _publish_side(), ids=_rel)
def test_publish_side_runs_no_pr_code(path: Path) -> None:
    doc = load(path)
    for uses in _uses(doc):
        assert not uses.startswith(CHECKOUT), f"{_rel(path)} checks out code"
        assert "download-artifact" not in uses  # the REST intake does it, validated
        if uses.startswith("./"):
            # only the reusable workflow, which a workflow_run job loads from the default branch
            assert uses == "./.github/workflows/publish.yml", uses
    for step in _steps(doc):
        if "run" in step:
            assert "verify_pr.publish" in step["run"] or "action_install.sh" in step["run"]
    for job in (doc.get("jobs") or {}).values():
        assert job["permissions"] == PUBLISH_PERMISSIONS
    triggers = _triggers(doc)
    if "workflow_run" in triggers:
        text = path.read_text(encoding="utf-8")
        assert "zizmor: ignore[dangerous-triggers]" in text
        justification = text.split("zizmor: ignore[dangerous-triggers]", 1)[1].split("\n", 1)[0]
        assert len(justification.strip()) > 20, "the ignore must say why"


def test_publish_action_never_runs_the_verifier() -> None:
    text = PUBLISH_ACTION.read_text(encoding="utf-8")
    assert "verify_pr.action" not in text and "entrypoint" not in text and "docker" not in text


def test_only_the_split_is_ignored() -> None:
    for path in SHIPPED:
        for line in path.read_text(encoding="utf-8").splitlines():
            if "zizmor: ignore" in line:
                assert "ignore[dangerous-triggers]" in line, f"{_rel(path)}: {line}"
                assert "workflow_run" in path.read_text(encoding="utf-8")
