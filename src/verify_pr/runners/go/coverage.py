"""Line coverage of the PR's changed Go files, from the go command's own ``-coverprofile``.

The tracer is the toolchain's: ``go test -cover`` rewrites the packages named by ``-coverpkg``
(the folders of the changed code files, so a test in any package that calls them is measured)
with a counter per basic block, and writes at the test binary's exit a text profile whose
lines are ``IMPORT/PATH/file.go:L1.C1,L2.C2 STATEMENTS COUNT``. Nothing is written into the
checkout and no interpreter of ours runs in the sandbox: the profile is read here, strictly
(:func:`parse_profile`), and mapped to the tree's paths through the module path of the go.mod
nearest above each file (a nested module that go.mod's ``replace`` points at names its files by
its own path: :func:`profile_names`).

What a block says, per line: every line a block spans is executable and inside a function (go
instruments function bodies only); a line ran when a block that spans it counted. A block that
starts on a line another block also covers (``if x { return }``) makes the line ran when either
did: a line, not a branch. The profile comes from the PR's own test binary, so it is data,
parsed under caps, never a proof: it can only take a proof away (``verify.proof_coverage``).
A test binary that ends itself before the testing package writes the profile (``os.Exit`` in
a test, a panic) writes none for its package: that side has no data, which never counts as ran.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path, PurePosixPath

from verify_pr.sandbox import tree_files

PROFILE_MODE = re.compile(rb"mode: (set|count|atomic)\n")
# IMPORT/PATH/file.go:L1.C1,L2.C2 STATEMENTS COUNT (go's cover.ProfileBlock, one per line)
_BLOCK = re.compile(r"(\S+\.go):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)")
# the word the coverage flags follow (``runner.TEST_ARGS`` ends with it): once, exactly
_COUNT_FLAG = re.compile(r"(?<!\S)-count=1(?!\S)")
MAX_LINE = 10_000_000
MAX_GO_MOD = 1 << 20  # a go.mod is read this far for its module line
_MODULE = re.compile(r"[A-Za-z0-9_.~+][A-Za-z0-9_.~+/-]{0,499}")
MAX_BLOCK_LINES = 100_000  # a block that spans more than this is no block go writes


class ProfileError(Exception):
    """The profile is not what ``go test -coverprofile`` writes (internal)."""


def instrument(command: str, files: list[str], coverage_path: str) -> str | None:
    """``command`` (the suite's shell command, ``runner.suite_shell``) with go's coverage of
    the changed files' packages written to ``coverage_path``; None when it is not ours."""
    if len(_COUNT_FLAG.findall(command)) != 1 or not files:
        return None
    # folders the go command builds as packages of the module: never vendor/ or testdata/,
    # nor a folder whose name starts with "." or "_" (go ignores them)
    folders = sorted(
        {str(PurePosixPath(f).parent) for f in files if _package_folder(PurePosixPath(f).parent)}
    )
    if not folders:
        return None
    patterns = ",".join("." if d == "." else f"./{d}" for d in folders)
    if any(c in patterns for c in " \t\n'\"\\$`"):
        return None  # a folder name the flag cannot carry as one word: not measured
    flags = ["-covermode=set", f"-coverpkg={patterns}", f"-coverprofile={coverage_path}"]
    return _COUNT_FLAG.sub(lambda found: f"{found.group()} {shlex.join(flags)}", command)


def _package_folder(folder: PurePosixPath) -> bool:
    return not any(
        part in ("vendor", "testdata") or part.startswith((".", "_")) for part in folder.parts
    )


def parse_profile(
    data: bytes, wanted: dict[str, str], max_lines: int
) -> dict[str, tuple[frozenset[int], frozenset[int]]]:
    """Each measured file: its executable lines and the ones that ran. ``wanted`` maps the name
    the profile gives a file (its module's path, then its path in the module) to its tree path
    (:func:`profile_names`); a block of another file is skipped (a package holds other files),
    a line that is no block raises :class:`ProfileError`."""
    found = PROFILE_MODE.match(data)
    if found is None:
        raise ProfileError("the coverage data is not a go coverage profile")
    executable: dict[str, set[int]] = {}
    ran: dict[str, set[int]] = {}
    for raw in data[found.end() :].splitlines():
        if raw.startswith(b"mode: "):
            continue  # go test writes one mode line per package's profile it merges
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ProfileError("a profile line is not UTF-8") from None
        block = _BLOCK.fullmatch(line)
        if block is None:
            raise ProfileError("a profile line is not a coverage block")
        name, first, _, last, _, _, count = block.groups()
        path = wanted.get(name)
        if path is None:
            continue
        start, end = int(first), int(last)
        if not 1 <= start <= end <= MAX_LINE or end - start > MAX_BLOCK_LINES:
            raise ProfileError(f"{path}: a block's lines are out of range")
        lines = range(start, end + 1)
        executable.setdefault(path, set()).update(lines)
        if int(count) > 0:
            ran.setdefault(path, set()).update(lines)
        if len(executable[path]) > max_lines:
            raise ProfileError(f"{path}: more than {max_lines} lines")
    return {p: (frozenset(lines), frozenset(ran.get(p, ()))) for p, lines in executable.items()}


def profile_names(tree: Path, files: list[str]) -> dict[str, str]:
    """The name go's profile gives each of ``files`` -> its tree path: the path of the module
    whose go.mod is nearest above it in ``tree`` (the root's, or a nested module's that go.mod
    replaces a dependency with), then its path inside that module. A file with no module above
    it, or a go.mod that declares none, is left out (not measured)."""
    names: dict[str, str] = {}
    for rel in files:
        path = PurePosixPath(rel)
        for folder in path.parents:
            go_mod = folder / "go.mod"
            if not tree_files.is_plain_file(tree, str(go_mod)):
                continue
            text = tree_files.read_nested(tree, str(go_mod), MAX_GO_MOD)
            module = None if text is None else module_path(text.decode("utf-8", "replace"))
            if module is not None:
                inside = path.relative_to(folder)
                names[f"{module}/{inside}"] = rel
            break
    return names


def module_path(go_mod: str) -> str | None:
    """The module path a go.mod's text declares (``module example.com/m``, quoted or not, a
    comment after it); None when it declares none, or one that is no path."""
    for raw in go_mod.splitlines():
        words = raw.split("//", 1)[0].split()
        if len(words) == 2 and words[0] == "module":
            path = words[1].strip('"`')
            return path if _MODULE.fullmatch(path) else None
    return None
