"""The spec's hostile fixture: one repo whose check tries everything at once.

Network, a host token, HOME, writes outside /work, the docker socket, a thousand processes,
a disk fill and 5 MB of output: each attempt fails or is capped, and the result says so.
The same script in a permissive container shows the probe can see each one succeed.
"""

from __future__ import annotations

from pathlib import Path

from tests.integration.helpers import permissive
from tests.sandbox_helpers import sandbox

HOSTILE = r"""
r() { echo "RESULT $1=$2"; }
# Only lo in the sandbox: a connect to 192.0.2.1 (TEST-NET-1) fails at once, no packet leaves.
# The permissive control sets NO_TRAFFIC and only reads the routing table.
if grep -q '^[a-z0-9]*[[:space:]]00000000' /proc/net/route; then r route default; else r route none; fi
if [ -z "$NO_TRAFFIC" ]; then
  if timeout 3 wget -q -O /dev/null http://192.0.2.1/ 2>/dev/null; then r net open; else r net blocked; fi
fi
if [ -n "$GH_TOKEN$GITHUB_TOKEN" ]; then r token seen; else r token absent; fi
r home_env "$HOME"
if cat "$HOST_HOME/.host-marker" "$HOME/.host-marker" 2>/dev/null
then r home seen; else r home absent; fi
if ( echo x > /etc/pwned ) 2>/dev/null; then r write_etc ok; else r write_etc refused; fi
if ( echo x > /repo/pwned ) 2>/dev/null; then r write_repo ok; else r write_repo refused; fi
if [ -S /var/run/docker.sock ] || [ -S /run/docker.sock ]; then r sock found; else r sock absent; fi
# The spawning subshell dies when fork fails; counting and killing use builtins only.
( i=0; while [ $i -lt 1000 ]; do sleep 30 & i=$((i+1)); done ) 2>/dev/null
set -- /proc/[0-9]*
r procs "$#"
for p in /proc/[0-9]*; do
  read -r comm < "$p/comm" 2>/dev/null && [ "$comm" = sleep ] && kill -9 "${p#/proc/}"
done 2>/dev/null
if head -c 700000000 /dev/zero > /work/fill 2>/dev/null; then r fill ok; else r fill capped; fi
rm -f /work/fill
head -c 5000000 /dev/zero | tr '\0' 'A'
echo
r end reached
"""


def results(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("RESULT "):
            key, _, value = line[7:].partition("=")
            out[key] = value
    return out


def test_every_attempt_fails_or_is_capped(minimal_image: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".host-marker").write_text("host secret\n")
    env = {"GH_TOKEN": "ghp_hostile_fixture_secret", "GITHUB_TOKEN": "ghs_x", "HOME": str(home)}
    env["HOST_HOME"] = str(home)  # even told where HOME is, the check cannot reach it
    run = sandbox(
        tmp_path, minimal_image, HOSTILE, "--timeout", "120", "--max-output", "4096", env=env
    )
    assert run.code == 0, run.stderr
    assert run.result["status"] == "COMPLETED", run.result
    assert run.result["output_truncated"] is True
    assert len(run.output) == 4096
    got = results(run.output.decode("utf-8", "replace"))
    assert got["net"] == "blocked"
    assert got["route"] == "none"
    assert got["token"] == "absent"
    assert got["home"] == "absent"
    assert got["home_env"] == "/work"
    assert got["write_etc"] == "refused"
    assert got["write_repo"] == "refused"
    assert got["sock"] == "absent"
    assert int(got["procs"]) <= 256
    assert got["fill"] == "capped"
    assert not (tmp_path / "repo" / "pwned").exists()


def test_positive_control_sees_what_the_sandbox_blocks(minimal_image: str, tmp_path: Path) -> None:
    import docker

    client = docker.from_env()
    try:
        script = "NO_TRAFFIC=1\n" + HOSTILE.replace("5000000", "10")
        text = permissive(client, minimal_image, tmp_path, script)
    finally:
        client.close()
    got = results(text)
    assert "net" not in got  # no traffic from the permissive container
    assert got["token"] == "seen"  # the permissive container was handed GH_TOKEN
    assert got["write_etc"] == "ok"
    assert got["write_repo"] == "ok"
    assert int(got["procs"]) > 900
    assert got["fill"] == "ok"
