"""Layers point one way: the token-holding publish side loads nothing that runs PR code.

Two checks. At run time: each entry point is imported in a fresh, isolated interpreter and its
``sys.modules`` must hold none of the modules it must not reach. Statically: every import
statement in every module of a layer, including those inside functions (which the first check
cannot see unless the function runs), is read from the syntax tree.

| layer                    | may not import                                         |
|--------------------------|--------------------------------------------------------|
| publish (checks: write)  | sandbox, runners, reports, verify, git, action, docker |
| action (the verify step) | sandbox, runners, reports, verify, publish (the verifier runs in a child process) |
| sandbox                  | runners, reports, verify, git, action, publish, github |
| reports, runners         | verify, action, publish, github                        |
| verify                   | action, publish, github                                |
| policy (the verdict's rules, for both jobs) | everything above, and github, docker |
| shared: models, markdown, render, github, errors, exit_codes, options, utf8 | everything above, policy, docker |
| contract (names, defaults) | all of the above but errors, and models, docker        |

Inside verify, the stages of one compare point one way too (``STAGES``): a stage imports only
the stages it builds on, and none imports the entry (cli, compare_run) that calls them all.

| stage of verify | may import (of verify)                 |
|-----------------|----------------------------------------|
| runs            | settings                               |
| trees           | nothing                                |
| split           | runs                                   |
| harness         | runs, trees                            |
| coverage        | runs, split                            |
| pairing         | runs, trees, split, coverage           |
| proof           | runs, split, coverage, pairing         |
| decision        | every stage above                      |

harness scans the exports (``trees.Exported``) and makes its facts from head's run (the tamper
signals of base's plan, the markers: ``runs``); pairing starts the whole runs it pairs on the
settled trees, for the paths split judged (base's own run for the edited ones, a path the
runs place tests in moved over: ``split``), with the tracer on (``coverage``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.helpers import PACKAGE, imports, package_of

PR_SIDE = ("sandbox", "runners", "reports", "verify", "git", "action")
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "publish": (*PR_SIDE, "docker"),
    "sandbox": ("runners", "reports", "verify", "git", "action", "publish", "github"),
    "reports": ("verify", "action", "publish", "github"),
    "runners": ("verify", "action", "publish", "github"),
    "verify": ("action", "publish", "github"),
    "action": ("sandbox", "runners", "reports", "verify", "publish"),
    "policy": (*PR_SIDE, "publish", "github", "docker", "render", "markdown"),
    "github": (*PR_SIDE, "publish", "policy", "docker"),
    "models": (*PR_SIDE, "publish", "policy", "github", "docker"),
    "markdown": (*PR_SIDE, "publish", "policy", "github", "docker"),
    "render": (*PR_SIDE, "publish", "policy", "github", "docker"),
    "errors": (*PR_SIDE, "publish", "policy", "github", "docker"),
    "exit_codes": (*PR_SIDE, "publish", "policy", "github", "docker"),
    "utf8": (*PR_SIDE, "publish", "policy", "github", "docker"),
    "contract": (
        *PR_SIDE,
        *("publish", "policy", "github", "docker", "models", "markdown", "render"),
    ),
    "options": (*PR_SIDE, "publish", "policy", "github", "docker", "models", "markdown", "render"),
}
# verify's stages, in the order of one compare's story, and what each may import of verify
STAGES: dict[str, tuple[str, ...]] = {
    "runs": ("settings",),
    "trees": (),
    "split": ("runs",),
    "harness": ("runs", "trees"),
    "coverage": ("runs", "split"),
    "pairing": ("runs", "trees", "split", "coverage"),
    "proof": ("runs", "split", "coverage", "pairing"),
    "decision": ("runs", "trees", "harness", "split", "coverage", "pairing", "proof"),
}
VERIFY = PACKAGE / "verify"
ENTRY_POINTS = {
    "verify_pr.action": FORBIDDEN["action"],
    "verify_pr.publish.main": FORBIDDEN["publish"],
    "verify_pr.policy.verdict": FORBIDDEN["policy"],
    "verify_pr.sandbox.cli": FORBIDDEN["sandbox"],
    "verify_pr.sandbox.run": FORBIDDEN["sandbox"],
    "verify_pr.verify.cli": FORBIDDEN["verify"],
}


def _top(module: str) -> str | None:
    """The verify_pr part a module name belongs to (``verify_pr.git`` -> ``git``)."""
    if module == "docker" or module.startswith("docker."):
        return "docker"
    if not module.startswith("verify_pr."):
        return None
    return module.split(".")[1]


def _layer_files(layer: str) -> list[Path]:
    single = PACKAGE / f"{layer}.py"
    return [single] if single.is_file() else sorted((PACKAGE / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_module_of_a_layer_imports_what_it_must_not(layer: str) -> None:
    files = _layer_files(layer)
    assert files, layer
    bad = []
    for path in files:
        for module in imports(path.read_text(encoding="utf-8"), package_of(path)):
            top = _top(module)
            if top in FORBIDDEN[layer]:
                bad.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert not bad, "\n".join(bad)


def _stage(module: str) -> str | None:
    """The part of verify a module name belongs to (``verify_pr.verify.runs.suite`` -> ``runs``,
    ``verify_pr.verify.cli`` -> ``cli``); None outside verify, and for the package itself."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["verify_pr", "verify"] and len(parts) > 2 else None


def test_verify_is_its_stages_and_its_entry() -> None:
    """Every module of verify is in a stage, or is one of the few at the top that run them."""
    tops = {p.stem for p in VERIFY.glob("*.py")} - {"__init__"}
    stages = {p.parent.name for p in VERIFY.glob("*/__init__.py")}
    assert stages == set(STAGES)
    assert tops == {"cli", "compare_run", "settings"}


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_stage_of_verify_imports_only_the_stages_it_builds_on(stage: str) -> None:
    bad = []
    for path in sorted((VERIFY / stage).rglob("*.py")):
        for module in imports(path.read_text(encoding="utf-8"), package_of(path)):
            other = _stage(module)
            if other not in (None, stage, *STAGES[stage]):
                bad.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert not bad, "\n".join(bad)


def test_the_stage_check_sees_a_stage_climbing_back_up() -> None:
    """Positive control: a run importing the pairing, or a proof the entry, is caught."""
    source = (
        "from verify_pr.verify.pairing.pairing import pair\n"
        "def f():\n    from ..compare_run import run_compare\n"
    )
    found = {_stage(m) for m in imports(source, ("verify_pr", "verify", "proof"))}
    assert {"pairing", "compare_run"} <= found
    assert "pairing" not in STAGES["runs"] and "compare_run" not in STAGES["proof"]


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_entry_point_loads_nothing_it_must_not(entry: str) -> None:
    code = (
        f"import importlib, sys\nimportlib.import_module({entry!r})\nprint('\\n'.join(sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    loaded = {_top(m) for m in done.stdout.split()} - {None}
    assert loaded, "the probe saw no verify_pr module: it is broken"
    assert not loaded & set(ENTRY_POINTS[entry]), (entry, loaded & set(ENTRY_POINTS[entry]))


def test_the_static_check_sees_imports_inside_functions() -> None:
    """Positive control: imports hidden in a function body, relative or absolute, are found."""
    source = (
        "def f():\n    from verify_pr.verify import compare\n"
        "def g():\n    from ..sandbox import run\n"
        "def h():\n    import docker.errors\n"
    )
    found = {_top(m) for m in imports(source, ("verify_pr", "publish"))}
    assert {"verify", "sandbox", "docker"} <= found
    assert {"verify", "sandbox", "docker"} <= set(FORBIDDEN["publish"])
