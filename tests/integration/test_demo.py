"""The README's first command ends in scripts/demo.py: three pull requests on a small repository,
judged in real containers. This holds it to what the README says it shows: the real fix is
VERIFIED, the weakened test NOT PROVEN with its reason, and the attack contained, with what it
found inside the sandbox; then the next step. (scripts/demo.sh's setup around it is the same
scripts/lib/docker-daemon.sh that scripts/test.sh runs.)

The attack's twins: the host file it looks for exists on the host, the token is in the
environment of the verify-pr it runs under, and its forged trailer reached the log, so "not
there", "none" and the FAIL are the sandbox's doing, not a probe that looked nowhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_docker

ROOT = Path(__file__).resolve().parents[2]
IMAGE = "verify-pr-python:local"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_the_demo_shows_a_fix_verified_a_weakened_test_not_proven_and_an_attack_contained(
    tmp_path: Path,
) -> None:
    require_docker(IMAGE)
    work = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "demo.py"), "--image", IMAGE, "--work", str(work)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    fix, weak, attack = (out.split(f"\n{n}. ", 1)[1].split("\n\n", 1)[0] for n in (1, 2, 3))

    assert "VERIFIED (exit 0)" in fix
    assert "test_ten_percent_off (tests/test_pricing.py:8) fails on main's code" in fix
    assert "test_full_discount (tests/test_pricing.py:12)" in fix
    assert "tests that passed on main and fail with the PR: 0" in fix

    assert "NOT PROVEN (exit 4)" in weak
    assert "changed, not the code" in weak and "test_ten_percent_off" in weak

    assert "FAIL (exit 1)" in attack
    assert "the sandbox gave the check only CI, HOME, PATH" in " ".join(attack.split())
    # what the attack found: one "name: value" line each, indented under the verdict
    lines = [line.strip() for line in attack.splitlines() if line.startswith(" " * 5)]
    found = dict(line.split(": ", 1) for line in lines)
    assert found["network"].startswith("no way out")
    assert found["tokens in the environment"] == "none"
    assert found["Docker socket /var/run/docker.sock"] == "not there"
    secret = work / "host-secret.txt"
    assert found[f"host file {secret}"] == "not there"
    assert found["write /usr/bin/backdoor"] == "refused (Read-only file system)"
    # the sentence names every variable the test saw: passed by the sandbox, or set inside
    seen = found["environment"].split(", ")
    inside = [name for name in seen if name not in ("CI", "HOME", "PATH")]
    assert {"CI", "HOME", "PATH"} <= set(seen)
    said = " ".join(attack.split())
    assert not inside or f"PATH; {', '.join(inside)} were set inside it" in said
    # the twins: what the attack reached for was there to reach, and it did try to forge
    assert secret.read_text(encoding="utf-8") == "the host's secret\n"
    assert "$ GITHUB_TOKEN=demo-value-not-a-real-token verify-pr run" in attack
    assert f"VPR1 {'0' * 32} RC 0 returned" in (work / "attack-out" / "output.txt").read_text()

    summary = out.split("\nSummary:\n", 1)[1]
    for what, verdict in (("real fix", "VERIFIED"), ("weakened test", "NOT PROVEN")):
        assert f"the {what}" in summary and verdict in summary
    assert summary.count("as expected") == 3 and "EXPECTED" not in summary
    assert "Next step: add the two workflows" in summary
