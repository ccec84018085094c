#!/usr/bin/env bash
# Install verify-pr from the action's own folder into a fresh, isolated venv.
# Usage: action_install.sh ROOT VENV. The installer is uv, pinned and hash-checked in
# requirements/bootstrap.txt: the interpreter's pip fetches the one uv wheel whose sha256 is
# there (nothing is installed for that: no ensurepip run, no pip in the venv). uv then installs
# every dependency from requirements/action.txt, hash-checked, wheels only. The package itself is
# not built: its files (what pyproject's package-data names, and the modules) are copied from the
# action's own src/ into the venv and compiled, which a wheel build would do with setuptools
# started in a process of its own, at twice the cost. Neither installer reads the runner's
# configuration: pip runs
# --isolated, uv --no-config with every UV_* variable unset, so no pip.conf, uv.toml or pyproject
# in the working directory or the home folder can point either at another index or turn a check
# off.
# Every Python started here runs with -I (isolated mode: no current directory, no PYTHON*
# variables, no user site on sys.path), so a PR's `pip/` or `venv.py` in the working
# directory is never imported; action.yml also runs this step outside the workspace.
set -euo pipefail
root=$1
venv=$2
python=${VERIFY_PR_BOOTSTRAP_PYTHON:-python3}
# One interpreter start checks the version and finds the pip that fetches uv: the interpreter's
# own when it has one (compiled, so quicker to start), else the pip wheel ensurepip would
# install, which runs as `python pip.whl/pip` (CPython keeps it in ensurepip/_bundled, Debian's
# python3-venv in /usr/share/python-wheels). pip only fetches and hash-checks the uv wheel.
if ! pip_from=$("$python" -I -c '
import glob, importlib.util, os, sys
if sys.version_info < (3, 11):
    sys.exit(1)
if importlib.util.find_spec("pip") is not None:
    print("-m")
elif importlib.util.find_spec("ensurepip") is not None:
    import ensurepip
    here = os.path.join(os.path.dirname(ensurepip.__file__), "_bundled")
    found = glob.glob(os.path.join(here, "pip-*.whl")) or glob.glob("/usr/share/python-wheels/pip-*.whl")
    print(os.path.join(sorted(found)[-1], "pip") if found else "")
' 2>/dev/null); then
  echo "::error title=verify-pr::verify-pr needs Python 3.11 or newer as python3 (add actions/setup-python before it)"
  exit 2
fi
if [ -z "$pip_from" ]; then
  echo "::error title=verify-pr::$python has neither pip nor a pip wheel for ensurepip (install python3-venv)"
  exit 2
fi
for name in $(compgen -e); do
  case $name in UV_* | PIP_*) unset "$name" ;; esac
done
rm -rf "$venv"
bootstrap="$venv/verify-pr-bootstrap"
mkdir -p "$bootstrap"
pip=("$python" -I -m pip)
[ "$pip_from" = -m ] || pip=("$python" -I "$pip_from")
# The fetch (mostly waiting on the network) runs while the venv is made.
"${pip[@]}" download --isolated --disable-pip-version-check --no-input --quiet \
  --no-cache-dir --require-hashes --only-binary :all: --no-deps --dest "$bootstrap" \
  -r "$root/requirements/bootstrap.txt" &
fetch=$!
trap 'kill "$fetch" 2>/dev/null || true' EXIT
# No pip in the venv: uv installs into it from outside (--python), which saves ensurepip's run.
"$python" -I -m venv --without-pip "$venv"
wait "$fetch"
trap - EXIT
# Only the binary is needed from the hash-checked wheel: no need to install the rest of it.
"$python" -I -c '
import glob, os, sys, zipfile
(wheel,) = glob.glob(os.path.join(sys.argv[1], "uv-*.whl"))
with zipfile.ZipFile(wheel) as whl:
    (member,) = [n for n in whl.namelist() if n.endswith(".data/scripts/uv")]
    with whl.open(member) as src, open(sys.argv[2], "xb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
os.chmod(sys.argv[2], 0o700)
' "$bootstrap" "$bootstrap/uv"
# --system-certs: trust the platform's certificate store, as pip does (where a runner behind a
# TLS proxy adds its CA), not uv's built-in roots.
uv=("$bootstrap/uv" pip install --no-config --no-cache --system-certs --quiet)
uv+=(--python "$venv/bin/python")
"${uv[@]}" --require-hashes --only-binary :all: --no-deps --compile-bytecode \
  -r "$root/requirements/action.txt"
# The package: the files a wheel would hold (its modules and what pyproject's package-data
# names, read from pyproject.toml itself: one place for that list), regular files only, copied
# without any __pycache__ or stray file of the action's folder; then compiled, as uv compiled
# the dependencies.
site=$("$venv/bin/python" -I -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
"$venv/bin/python" -I -c '
import os, shutil, sys, tomllib
from pathlib import Path
root, site = Path(sys.argv[1]), Path(sys.argv[2])
with open(root / "pyproject.toml", "rb") as f:
    data = tomllib.load(f)["tool"]["setuptools"]["package-data"]["verify_pr"]
src = root / "src"
package = src / "verify_pr"
files = {p for p in package.rglob("*.py") if "__pycache__" not in p.parts}
files |= {p for pattern in data for p in package.glob(pattern)}
for path in sorted(files):
    if path.is_symlink() or not path.is_file():
        sys.exit(f"verify-pr: {path} is not a regular file")
    dest = site / path.relative_to(src)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, dest)
' "$root" "$site"
"$venv/bin/python" -I -m compileall -q "$site/verify_pr"
rm -rf "$bootstrap"
echo "verify-pr: installed into $venv"
