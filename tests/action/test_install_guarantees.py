"""The action's install (scripts/action_install.sh) keeps its guarantees with uv as installer.

Each test runs the real script on a copy of the action's files, from a working directory and a
HOME of its own, against the real index (the install needs it, as on a runner):
- a wrong sha256 in either lock (the dependencies' or uv's own) fails the install;
- configuration the PR or the runner could plant (uv.toml and pyproject.toml in the working
  directory, pip.conf and uv.toml in HOME, PIP_*/UV_* variables), all pointing at an index that
  does not answer, is not read: the install succeeds. Its positive controls are copies of the
  script with one isolation flag taken out, which the same configuration makes fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("scripts", "src", "requirements", "pyproject.toml", "README.md")
# Nothing listens on the discard port of the loopback: a read of any of this fails fast.
DEAD_INDEX = "http://127.0.0.1:9/simple"

pytestmark = [pytest.mark.slow]


def copy_action(dest: Path) -> Path:
    dest.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(source, dest / name, ignore=ignore)
        else:
            shutil.copy2(source, dest / name)
    return dest


def install(
    action: Path, where: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the action's install script from ``where`` (its cwd) with HOME there too."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    base |= {"HOME": str(where), "XDG_CACHE_HOME": str(where / ".cache")}
    base |= {"XDG_CONFIG_HOME": str(where / ".config")}
    return subprocess.run(
        ["bash", str(action / "scripts" / "action_install.sh"), str(action), str(where / "venv")],
        cwd=where,
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def installed(where: Path) -> bool:
    python = where / "venv" / "bin" / "python"
    # the package data too: the sandbox's scripts, the jest/vitest recorders' sources
    code = (
        "import docker, pydantic; from verify_pr.sandbox import cli, policy; "
        "from verify_pr.runners.node import failing_recorder as f; "
        "policy._script('boot.sh'); f.jest_install(); f.vitest_install()"
    )
    probe = [str(python), "-I", "-c", code]
    return python.exists() and subprocess.run(probe, capture_output=True).returncode == 0


def break_one_hash(lock: Path, package: str) -> None:
    """Change the last hex digit of every hash of ``package`` in ``lock``."""
    text = lock.read_text(encoding="utf-8")
    block = re.search(rf"^{re.escape(package)}==[^\n]*(\n {{4}}--hash=[^\n]*)+", text, re.M)
    assert block, f"{package} is not in {lock.name}"
    flipped = re.sub(
        r"(--hash=sha256:[0-9a-f]{63})([0-9a-f])",
        lambda m: m[1] + ("0" if m[2] != "0" else "1"),
        block[0],
    )
    assert flipped != block[0]
    lock.write_text(text.replace(block[0], flipped), encoding="utf-8")


@pytest.mark.parametrize(
    ("lock", "package"), [("action.txt", "defusedxml"), ("bootstrap.txt", "uv")]
)
def test_a_wrong_hash_in_a_lock_fails_the_install(tmp_path: Path, lock: str, package: str) -> None:
    action = copy_action(tmp_path / "action")
    break_one_hash(action / "requirements" / lock, package)
    where = tmp_path / "run"
    where.mkdir()
    done = install(action, where)
    assert done.returncode != 0, done.stdout + done.stderr
    assert "hash" in done.stderr.lower(), done.stderr
    assert not installed(where)


def poison(where: Path) -> dict[str, str]:
    """Plant every configuration either installer could read, all at the dead index."""
    (where / "uv.toml").write_text(f'index-url = "{DEAD_INDEX}"\nno-binary = true\n')
    (where / "pyproject.toml").write_text(
        f'[project]\nname = "pr"\nversion = "0"\n[tool.uv]\nindex-url = "{DEAD_INDEX}"\n'
    )
    pip_conf = where / ".config" / "pip" / "pip.conf"
    pip_conf.parent.mkdir(parents=True)
    pip_conf.write_text(f"[global]\nindex-url = {DEAD_INDEX}\nretries = 0\ntimeout = 2\n")
    (where / ".config" / "uv").mkdir()
    (where / ".config" / "uv" / "uv.toml").write_text(f'index-url = "{DEAD_INDEX}"\n')
    return {
        "PIP_INDEX_URL": DEAD_INDEX,
        "PIP_CONFIG_FILE": str(pip_conf),
        "UV_INDEX_URL": DEAD_INDEX,
        "UV_DEFAULT_INDEX": DEAD_INDEX,
        "UV_NO_VERIFY_HASHES": "1",
    }


def test_no_configuration_from_the_checkout_or_the_runner_is_read(tmp_path: Path) -> None:
    action = copy_action(tmp_path / "action")
    where = tmp_path / "run"
    where.mkdir()
    done = install(action, where, poison(where))
    assert done.returncode == 0, done.stderr
    assert installed(where)


@pytest.mark.parametrize(
    ("flag", "says"),
    [
        ("--no-config ", "127.0.0.1"),  # uv then reads uv.toml from the working directory
        ("--isolated ", "no matching distribution found for uv"),  # pip reads HOME's pip.conf
    ],
)
def test_positive_control_without_one_isolation_flag_the_configuration_is_read(
    tmp_path: Path, flag: str, says: str
) -> None:
    action = copy_action(tmp_path / "action")
    script = action / "scripts" / "action_install.sh"
    text = script.read_text(encoding="utf-8")
    assert flag in text, f"{flag} is not in the script: the control would prove nothing"
    script.write_text(text.replace(flag, ""), encoding="utf-8")
    where = tmp_path / "run"
    where.mkdir()
    done = install(action, where, poison(where))
    assert done.returncode != 0, done.stderr
    assert says in done.stderr.lower(), done.stderr
    assert not installed(where)


def test_an_interpreter_without_pip_bootstraps_from_its_ensurepip_wheel(tmp_path: Path) -> None:
    # a runner's python3 may have no pip of its own: pip then runs from the wheel ensurepip
    # ships, the script's other branch
    bare = tmp_path / "bare"
    subprocess.run(["python3", "-I", "-m", "venv", "--without-pip", str(bare)], check=True)
    python = str(bare / "bin" / "python")
    has_pip = [python, "-I", "-c", "import importlib.util as u; print(u.find_spec('pip'))"]
    assert subprocess.run(has_pip, capture_output=True, text=True).stdout.strip() == "None"
    where = tmp_path / "run"
    where.mkdir()
    done = install(ROOT, where, {"VERIFY_PR_BOOTSTRAP_PYTHON": python})
    assert done.returncode == 0, done.stderr
    assert installed(where)


def test_the_package_is_copied_as_a_wheel_would_hold_it(tmp_path: Path) -> None:
    # The install copies src/verify_pr instead of building it: every module and every file
    # pyproject's package-data names arrives, compiled; nothing else from the action's folder
    # (a stray file, a stale __pycache__) does.
    action = copy_action(tmp_path / "action")
    package = action / "src" / "verify_pr"
    (package / "stray.txt").write_text("not package data\n")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "stale.cpython-311.pyc").write_bytes(b"stale")
    where = tmp_path / "run"
    where.mkdir()
    done = install(action, where)
    assert done.returncode == 0, done.stderr
    assert installed(where)
    python = where / "venv" / "bin" / "python"
    site = subprocess.run(
        [str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    copied = Path(site) / "verify_pr"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = project["tool"]["setuptools"]["package-data"]["verify_pr"]
    wanted = {p.relative_to(package) for p in package.rglob("*.py")}
    wanted |= {p.relative_to(package) for pattern in data for p in package.glob(pattern)}
    got = {p.relative_to(copied) for p in copied.rglob("*") if "__pycache__" not in p.parts}
    got -= {p for p in got if (copied / p).is_dir()}
    assert got == wanted
    assert {"sandbox/seccomp.json", "sandbox/boot.sh", "py.typed"} <= {str(p) for p in got}
    assert not (copied / "__pycache__" / "stale.cpython-311.pyc").exists()
    assert list((copied / "sandbox" / "__pycache__").glob("cli.*.pyc")), "not compiled"
