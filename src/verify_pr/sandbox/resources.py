"""CPU and memory for one run: the spec's 1 CPU and 512 MiB by default, larger on request
(suites with workers: pytest-xdist, jest workers), bounded and validated once, by the
options' own checks (``verify_pr.options``)."""

from __future__ import annotations

from dataclasses import dataclass

from verify_pr.options import DEFAULT_CPUS, DEFAULT_MEMORY, NANO, parse_cpus, parse_memory

__all__ = ["DEFAULT_RESOURCES", "MIB", "Resources", "parse_cpus", "parse_memory", "parse_resources"]

MIB = 1024 * 1024


@dataclass(frozen=True)
class Resources:
    nano_cpus: int = NANO
    memory_mib: int = 512

    @property
    def cpus(self) -> float:
        return self.nano_cpus / NANO

    @property
    def memory(self) -> str:
        """Docker's notation, as given to the daemon and shown in --print-argv."""
        return f"{self.memory_mib}m"

    @property
    def memory_bytes(self) -> int:
        return self.memory_mib * MIB


DEFAULT_RESOURCES = Resources()


def parse_resources(cpus: str | None, memory: str | None) -> Resources:
    return Resources(
        nano_cpus=parse_cpus(cpus if cpus is not None else DEFAULT_CPUS),
        memory_mib=parse_memory(memory if memory is not None else DEFAULT_MEMORY),
    )
