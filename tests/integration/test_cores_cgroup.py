"""The pool's width follows the cores a cgroup-limited job really has (``verify.cores``), read
inside a real container whose CPU quota the engine set, with the unlimited run as control."""

from __future__ import annotations

from pathlib import Path

import docker

from tests.integration.helpers import IMAGES

SRC = Path(__file__).resolve().parents[2] / "src"
PROBE = (
    "import sys; sys.path.insert(0, '/src'); from verify_pr.verify.runs import cores; "
    "print(cores.affinity(), cores.quota(), cores.usable())"
)


def _probe(nano_cpus: int | None) -> list[str]:
    client = docker.from_env()
    container = client.containers.create(
        IMAGES["pytest"],
        ["python3", "-c", PROBE],
        entrypoint=[],
        network_mode="none",
        volumes={str(SRC): {"bind": "/src", "mode": "ro"}},
        **({"nano_cpus": nano_cpus} if nano_cpus else {}),
    )
    try:
        container.start()
        assert container.wait(timeout=60)["StatusCode"] == 0, container.logs().decode()
        return container.logs().decode().split()
    finally:
        container.remove(force=True)


def test_a_cpu_quota_of_one_core_gives_one() -> None:
    affinity, quota, usable = _probe(10**9)
    assert quota == "1.0"
    assert usable == "1"
    assert int(affinity) >= 1


def test_without_a_quota_the_affinity_stands() -> None:
    affinity, quota, usable = _probe(None)  # the control: no quota, every core it may run on
    assert quota == "None"
    assert usable == affinity
