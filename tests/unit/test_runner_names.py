"""verify/ and action/ never compare a runner's name: they ask the runner (``runners/base.py``'s
protocol, ``runners/registry.py``), so a new runner is one package, not a branch in every stage.

Read from the syntax tree of every module of both layers: a use of a ``RunnerName`` member
(``RunnerName.PYTEST``) anywhere, or a string literal that is a runner's name ("pytest",
"jest", "vitest", "bun") anywhere (a comparison, an ``in`` tuple, a dict key, a match case, an
argument), fails. A literal that is not the runner's name but the same word (a module name, a
package.json key) is allowed below, by file and word, with the reason.
"""

from __future__ import annotations

import ast

from tests.unit.helpers import PACKAGE
from verify_pr.contract import RunnerName

LAYERS = ("verify", "action")
NAMES = frozenset(n.value for n in RunnerName)
# None today: the harness rule's module names and package.json keys come from the runners.
ALLOWED: dict[tuple[str, str], str] = {}


def runner_names(source: str) -> list[tuple[int, str]]:
    """(line, what) for each runner name the module's code uses."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and node.value in NAMES:
            found.append((node.lineno, str(node.value)))
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "RunnerName"
        ):
            found.append((node.lineno, f"RunnerName.{node.attr}"))
    return found


def test_verify_and_action_never_name_a_runner() -> None:
    bad = []
    for layer in LAYERS:
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            rel = path.relative_to(PACKAGE).as_posix()
            for line, what in runner_names(path.read_text(encoding="utf-8")):
                if (rel, what) not in ALLOWED:
                    bad.append(f"{rel}:{line} uses {what}: ask the runner (runners/base.py)")
    assert not bad, "\n".join(bad)


def test_every_allowed_use_is_still_there() -> None:
    """An allowance whose use is gone is removed, so it cannot hide a new comparison."""
    for rel, what in ALLOWED:
        uses = runner_names((PACKAGE / rel).read_text(encoding="utf-8"))
        assert what in {w for _, w in uses}, (rel, what)


def test_the_check_sees_each_form_of_comparison() -> None:
    """Positive control: a comparison, an ``in`` tuple, a dict key, a match case and a
    ``RunnerName`` member are each found; a sentence that mentions a runner is not."""
    source = (
        'if runner == "pytest": pass\n'
        'if runner in ("jest", "vitest"): pass\n'
        'X = {"bun": 1}\n'
        'match runner:\n    case "vitest": pass\n'
        "if r is RunnerName.BUN: pass\n"
        'HELP = "pytest and jest are run as the image has them"\n'
    )
    found = runner_names(source)
    assert sorted(line for line, _ in found) == [1, 2, 2, 3, 5, 6], found
