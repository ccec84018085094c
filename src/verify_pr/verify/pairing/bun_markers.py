"""bun's expected-failure markers, failed closed: a test whose status could be inverted is no proof.

jest and vitest say a test's ``failing``/``fails`` flag through our recorders; bun's JUnit report
has no such field and bun has no hook that exposes it, so the line reader
(``expected_failures``) is all bun has, and a marker hidden from the line (``const { failing }
= test``, ``const {failing: f} = test``, an alias, ``test["failing"]``) made a plain test of an
inverted one: a test whose body passes on base's code and fails on head's then "turned green".
So under bun, a FAIL_TO_PASS test in a file that refers to ``failing`` or ``todo`` anywhere, or
looks a member of ``test``/``it``/``describe`` up by a computed name, proves nothing (the
``pairing`` discounts it, naming why). The file read is the PR's version (tests are the PR's on
both sides); one that cannot be read is doubtful too.

A test file need not say it: its ``test`` can come from a helper module that hands it
``test.failing`` (re-exported, destructured, through a chain of re-exports, or computed from an
alias of ``test``; issue 33, class 5). So the test file's static import closure in head's tree
is read too (``closure``: relative specifiers, resolved as bun resolves them), and each file of
it is held to what a helper does to pass a marker on (``_DOUBT_MODULE``): ``failing`` as a
member (``.failing``, ``["failing"]``), a ``.todo(`` call, an alias of
``test``/``it``/``describe`` (``test as t``, ``= test``, ``check: test``, ``export default
test``), a namespace import or a bare
``require`` of ``bun:test``, ``Bun.jest``, a computed member of ``globalThis``; the test file
itself is held to the word rule widened by the same aliases. What the reader
cannot follow is doubtful: a specifier that is not a literal, a relative one it cannot place
in the tree (or that leaves it, or passes a link), a subpath import (``#x``), a package the tree
itself holds (``node_modules/<name>``, the tree's own name, a ``paths`` alias of its
tsconfig/jsconfig), a closure larger than ``MAX_FILES``. Product code the closure reaches is
read too (a helper can be a code file: head's version inverts, before's does not): a fix
whose module passes a test function around costs its bun proofs, a price paid for never
taking an inverted test for a proof.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

from verify_pr.runners.base import ExpectedFailures, Runner
from verify_pr.sandbox import tree_files

_DOUBT = re.compile(
    rb"failing|todo|\b(?:test|it|describe)\s*\["
    rb"|\b(?:test|it|describe)\s+as\b|=\s*(?:test|it|describe)\s*(?:[;,)\n]|$)"
    rb"|\*\s*as\s+\w+\s+from\s*[\"']bun:test|=\s*require\s*\(\s*[\"']bun:test"
    rb"|\bBun\s*\.\s*jest\b|\bglobalThis\s*\["
)
# A module the test file imports is held to what hands a marker on, not to the words: product
# code says ``todo`` (a to-do list) or ``failing`` (a status) without touching a test function.
# Reaching the marker goes through a member (``.failing``, ``["failing"]``, ``.todo(``) or an
# alias of a test function (destructuring ``= test`` included).
_DOUBT_MODULE = re.compile(
    rb"\.\s*failing\b|\[\s*[\"'`]failing|\.\s*todo(?:If)?\s*\(|\b(?:test|it|describe)\s*\["
    rb"|\b(?:test|it|describe)\s+as\b|=\s*(?:test|it|describe)\s*(?:[;,)\n]|$)"
    rb"|:\s*(?:test|it|describe)\s*[,}\n]|\bdefault\s+(?:test|it|describe)\b"
    rb"|\*\s*as\s+\w+\s+from\s*[\"']bun:test|=\s*require\s*\(\s*[\"']bun:test"
    rb"|\bBun\s*\.\s*jest\b|\bglobalThis\s*\["
)
# a module specifier, as written after from/import/require/export ... from
_SPECIFIER = re.compile(rb"""(?:\bfrom|\bimport|\brequire)\s*\(?\s*(["'])([^"'\n]{1,1024})\1""")
# import(...) or require(...) of something that is not a plain string
_COMPUTED = re.compile(rb"""\b(?:import|require)\s*\(\s*(?!["'][^"'\n]*["']\s*\))""")
_EXTENSIONS = ("", ".ts", ".tsx", ".js", ".jsx", ".mts", ".mjs", ".cts", ".cjs", ".json")
MAX_BYTES = 8 << 20
MAX_FILES = 400
WHY = (
    "bun reports no expected-failure marker and its file refers to failing or todo (or looks "
    "a test function up by a computed name): its status could be inverted"
)
WHY_CLOSURE = (
    "bun reports no expected-failure marker and a module it imports ({via}) could hand it "
    "one (it refers to failing or todo, aliases a test function, or cannot be followed): its "
    "status could be inverted"
)


def doubtful_under(
    runner: Runner | None, tree: Path, files: Iterable[str | None]
) -> dict[str, str]:
    """``doubtful`` where ``runner`` cannot say a test's expected failure (bun); nothing where
    its report or our recorder does, or for an own command (no runner to ask)."""
    if runner is None or runner.expected_failures is not ExpectedFailures.CANNOT:
        return {}
    return doubtful(tree, files)


def doubtful(tree: Path, files: Iterable[str | None]) -> dict[str, str]:
    """Each of ``files`` (test files of a bun run, repo-relative) whose text, or the text of a
    module it imports, leaves a ``failing``/``todo`` marker possible, with why."""
    found: dict[str, str] = {}
    aliases = _aliases(tree)
    for file in sorted({f for f in files if f}):
        read = tree_files.read_capped(tree / file, MAX_BYTES) if _plain(file) else None
        if read is None or read[1] or _DOUBT.search(read[0]):
            found[file] = WHY
            continue
        via = closure_doubt(tree, file, read[0], aliases)
        if via is not None:
            found[file] = WHY_CLOSURE.format(via=via)
    return found


def closure_doubt(tree: Path, file: str, text: bytes, aliases: frozenset[str]) -> str | None:
    """The first file (or specifier) of ``file``'s import closure that leaves a marker
    possible, None when none does."""
    seen = {file}
    todo = [(file, text)]
    while todo:
        here, body = todo.pop()
        if _COMPUTED.search(body):
            return f"{here} imports a computed name"
        for match in _SPECIFIER.finditer(body):
            spec = match.group(2).decode("utf-8", "replace")
            target = _place(tree, here, spec, aliases)
            if target is None:
                continue
            if target == "":
                return f"{spec!r} from {here}"
            if target in seen:
                continue
            seen.add(target)
            if len(seen) > MAX_FILES:
                return f"more than {MAX_FILES} modules"
            read = tree_files.read_capped(tree / target, MAX_BYTES)
            if read is None or read[1] or _DOUBT_MODULE.search(read[0]):
                return target
            todo.append((target, read[0]))
    return None


def _place(tree: Path, importer: str, spec: str, aliases: frozenset[str]) -> str | None:
    """Where ``spec`` lands in the tree (a repo-relative file), None when outside it and not
    the PR's (``bun:test``, ``node:fs``, a package the image holds), "" when it cannot be
    followed."""
    if spec.startswith(("./", "../")) or spec in (".", ".."):
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec))
        if base.startswith("../") or base == "..":
            return ""
        stems = [base] + (
            [base[: -len(ext)] for ext in (".js", ".jsx", ".mjs", ".cjs") if base.endswith(ext)]
        )
        for stem in stems:
            for candidate in [stem + e for e in _EXTENSIONS] + [
                f"{stem}/index{e}" for e in _EXTENSIONS[1:]
            ]:
                if _plain(candidate) and tree_files.is_plain_file(tree, candidate):
                    return candidate
        return ""
    if ":" in spec.split("/")[0]:  # bun:test, node:fs
        return None
    if spec.startswith(("#", "/")):
        return ""
    if any(f"{spec}/".startswith(prefix) for prefix in aliases):
        return ""
    name = "/".join(spec.split("/")[:2]) if spec.startswith("@") else spec.split("/")[0]
    folder = posixpath.dirname(importer)
    while True:
        if tree_files.exists(tree, posixpath.join(folder, "node_modules", name)):
            return ""
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def _aliases(tree: Path) -> frozenset[str]:
    """Prefixes of bare specifiers that lead into the tree: its package.json's name, and the
    keys of its tsconfig/jsconfig ``paths`` (a key's part before ``*``; "" takes every one)."""
    names: set[str] = set()
    for config in ("package.json", "tsconfig.json", "jsconfig.json"):
        raw = tree_files.read_capped(tree / config, MAX_BYTES)
        if raw is None:
            continue
        if config == "package.json":
            names.update(
                m.decode("utf-8", "replace") for m in re.findall(rb'"name"\s*:\s*"([^"]+)"', raw[0])
            )
            continue
        for paths in re.findall(rb'"paths"\s*:\s*\{([^}]*)\}', raw[0]):
            for key in re.findall(rb'"([^"\n]*)"\s*:', paths):
                names.add(key.decode("utf-8", "replace").split("*")[0])
    return frozenset(names)


def _plain(file: str) -> bool:
    parts = file.split("/")
    return not file.startswith("/") and ".." not in parts and "\0" not in file
