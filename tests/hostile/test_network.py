"""Network: by name, by IPv4, by ::1, and a listener. The sandbox has only lo.

No test sends traffic anywhere but loopback: the sandbox has no interface but lo, so the
attempts to a name and to 192.0.2.1 (TEST-NET-1) fail before a packet exists. The positive
control only READS the host namespace's interface and route tables; it never connects."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile.helpers import attack, control, expect, loose, results

ATTEMPTS = [
    pytest.param(
        "if timeout 5 nslookup verify-pr.invalid >/dev/null 2>&1; then r=open; else r=blocked; fi",
        id="by-name",
    ),
    pytest.param(
        "if timeout 5 nc 192.0.2.1 80 </dev/null >/dev/null 2>&1; then r=open; else r=blocked; fi",
        id="by-ipv4",
    ),
    pytest.param(
        "if timeout 5 nc ::1 9 </dev/null >/dev/null 2>&1; then r=open; else r=blocked; fi",
        id="by-ipv6-loopback",
    ),
]
TABLES = (
    "echo RESULT ifaces=$(ls /sys/class/net | tr '\\n' ' '); "
    "if grep -q '^[a-z0-9]*[[:space:]]00000000' /proc/net/route; then echo RESULT route=default; "
    "else echo RESULT route=none; fi"
)


@pytest.fixture(scope="module")
def host_tables() -> dict[str, str]:
    _code, logs = loose(TABLES, network_mode="host")  # read-only look at the tables
    return results(logs)


@pytest.mark.parametrize("probe", ATTEMPTS)
def test_connections_fail(
    minimal_image: str, tmp_path: Path, probe: str, host_tables: dict[str, str]
) -> None:
    run = attack(tmp_path, minimal_image, f"{probe}; echo RESULT net=$r; {TABLES}")
    expect(run, "COMPLETED", 0)
    got = results(run.output)
    assert got["net"] == "blocked" and got["ifaces"].split() == ["lo"] and got["route"] == "none"
    assert host_tables["ifaces"].split() != ["lo"] and host_tables["route"] == "default"
    control("the host namespace has other interfaces and a default route (read only)")


def test_listener_is_reachable_only_on_loopback(minimal_image: str, tmp_path: Path) -> None:
    cmd = (
        "nc -l -p 8080 -e echo hello-from-listener & sleep 0.5; "
        "echo RESULT got=$(timeout 3 nc 127.0.0.1 8080 </dev/null); "
        "echo RESULT addrs=$(ip -o addr 2>/dev/null | awk '{print $4}' | tr '\\n' ' '); "
        "echo RESULT listen=$(grep -c ':1F90 00000000:0000 0A' /proc/net/tcp /proc/net/tcp6 | "
        "awk -F: '{s+=$2} END {print s}'); " + TABLES
    )
    run = attack(tmp_path, minimal_image, cmd, "--timeout", "20")
    expect(run, "COMPLETED", 0)
    got = results(run.output)
    assert got["got"] == "hello-from-listener"  # the probe can connect where it may: lo
    assert set(got["addrs"].split()) <= {"127.0.0.1/8", "::1/128"}, got
    assert got["ifaces"].split() == ["lo"]
    control("the listener answers on 127.0.0.1 inside, so the probe works; lo is all there is")
