"""A small stand-in for the Actions runner: runs a composite action's steps read from its YAML.

``run:`` steps run with ``bash --noprofile --norc -eo pipefail`` (the runner's bash), with the
step's ``env:`` evaluated, a fresh ``GITHUB_OUTPUT`` per step and the job's
``GITHUB_STEP_SUMMARY``. ``uses:`` steps go to a handler the test gives (the test simulates
checkout and the artifact actions). Expressions: only what the shipped actions use
(``inputs.*``, ``github.*``, ``runner.temp``, ``steps.<id>.outputs.*``, ``always()``,
``success()``, ``==``, ``!=``, ``&&``); anything else fails the test.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_COMPARE = re.compile(r"^([A-Za-z0-9_.-]+)\s*(==|!=)\s*'([^']*)'$")


@dataclass
class Job:
    """One job's files and variables, as the runner sets them."""

    root: Path
    env: dict[str, str]
    github: dict[str, str]
    summary: Path
    log: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, root: Path, variables: dict[str, str]) -> Job:
        temp = root / "runner-temp"
        temp.mkdir(parents=True)
        summary = root / "step-summary.md"
        summary.touch()
        env = {
            "PATH": os.environ["PATH"],
            "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "RUNNER_TEMP": str(temp),
            "RUNNER_OS": "Linux",
            "GITHUB_STEP_SUMMARY": str(summary),
            **{k: os.environ[k] for k in ("DOCKER_HOST",) if k in os.environ},
            **variables,
        }
        github = {
            "workspace": env.get("GITHUB_WORKSPACE", ""),
            "token": "ghs_fake_token_for_tests",
        }
        return cls(root=root, env=env, github=github, summary=summary)


UsesHandler = Callable[[str, dict[str, str]], None]


def _reference(name: str, ctx: dict[str, Any]) -> str:
    scope, _, rest = name.partition(".")
    if scope == "inputs":
        return str(ctx["inputs"][rest])
    if scope == "github":
        return str(ctx["github"][rest])
    if scope == "runner" and rest == "temp":
        return str(ctx["env"]["RUNNER_TEMP"])
    if scope == "steps":
        step_id, kind, output = rest.split(".", 2)
        assert kind == "outputs", name
        return str(ctx["steps"].get(step_id, {}).get(output, ""))
    raise AssertionError(f"expression not supported by the simulator: {name}")


def substitute(text: str, ctx: dict[str, Any]) -> str:
    return _EXPR.sub(lambda m: _reference(m.group(1), ctx), text)


def condition(expr: str | None, ctx: dict[str, Any]) -> bool:
    if expr is None:
        return not ctx["failed"]
    expr = _EXPR.sub(lambda m: m.group(1), str(expr)).strip()
    status_checked = False
    result = True
    for term in (t.strip() for t in expr.split("&&")):
        if term == "always()":
            status_checked = True
        elif term == "success()":
            status_checked = True
            result = result and not ctx["failed"]
        else:
            match = _COMPARE.match(term)
            assert match, f"condition not supported by the simulator: {term}"
            value = _reference(match.group(1), ctx)
            equal = value == match.group(3)
            result = result and (equal if match.group(2) == "==" else not equal)
    if not status_checked:
        result = result and not ctx["failed"]
    return result


def parse_output_file(path: Path) -> dict[str, str]:
    """The env-file protocol: ``name=value`` or ``name<<DELIM`` ... ``DELIM``."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        i += 1
    return outputs


def _working_directory(step: dict[str, Any], ctx: dict[str, Any]) -> str | None:
    value = step.get("working-directory")
    return substitute(str(value), ctx) if value is not None else None


@dataclass
class StepResult:
    name: str
    ran: bool
    returncode: int = 0
    stdout: str = ""


def run_composite(
    action_file: Path,
    job: Job,
    inputs: dict[str, str],
    uses: UsesHandler,
    *,
    force_cwd: Path | None = None,
    keep_going: bool = False,
    skip: tuple[str, ...] = (),
    after_step: Callable[[StepResult], None] | None = None,
) -> tuple[dict[str, str], list[StepResult]]:
    """Run every step of the action; returns its outputs and what each step did.

    A ``run:`` step runs in its ``working-directory`` (expressions evaluated), else in the
    workspace, as the runner does. Test knobs: ``force_cwd`` runs every step there instead
    (to prove the isolation flags alone); ``keep_going`` runs later steps after a failure (to
    reach every step in one job); ``skip`` names steps not to run; ``after_step`` is called
    after each step that ran.
    """
    action = yaml.safe_load(action_file.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    declared = action.get("inputs", {})
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    ctx: dict[str, Any] = {
        "inputs": {k: inputs.get(k, str(v.get("default", ""))) for k, v in declared.items()},
        "github": {**job.github, "action_path": str(action_file.parent)},
        "env": job.env,
        "steps": {},
        "failed": False,
    }
    ctx["inputs"] = {k: substitute(v, ctx) for k, v in ctx["inputs"].items()}
    results: list[StepResult] = []
    for index, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {index}")
        if name in skip or not condition(step.get("if"), ctx):
            results.append(StepResult(name, ran=False))
            continue
        if "uses" in step:
            with_ = {k: substitute(str(v), ctx) for k, v in (step.get("with") or {}).items()}
            uses(step["uses"], with_)
            results.append(StepResult(name, ran=True))
            if after_step:
                after_step(results[-1])
            continue
        output = job.root / f"output-{index}"
        output.touch()
        env = {
            **job.env,
            "GITHUB_OUTPUT": str(output),
            "GITHUB_ACTION_PATH": str(action_file.parent),
            **{k: substitute(str(v), ctx) for k, v in (step.get("env") or {}).items()},
        }
        script = job.root / f"step-{index}.sh"
        script.write_text(step["run"], encoding="utf-8")
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            env=env,
            cwd=force_cwd or _working_directory(step, ctx) or job.env.get("GITHUB_WORKSPACE"),
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        job.log.append(f"--- {name} (exit {done.returncode})\n{done.stdout}{done.stderr}")
        results.append(StepResult(name, True, done.returncode, done.stdout))
        if "id" in step:
            ctx["steps"][step["id"]] = parse_output_file(output)
        if after_step:
            after_step(results[-1])
        if done.returncode != 0 and not keep_going:
            ctx["failed"] = True
    outputs = {k: substitute(str(v["value"]), ctx) for k, v in action.get("outputs", {}).items()}
    return outputs, results
