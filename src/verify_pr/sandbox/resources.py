"""CPU and memory for one run: the spec's 1 CPU and 512 MiB by default, larger on request
(suites with workers: pytest-xdist, jest workers), bounded and validated here, once."""

from __future__ import annotations

import re
from dataclasses import dataclass

from verify_pr.errors import InputRefused

MIB = 1024 * 1024
DEFAULT_CPUS = "1"
DEFAULT_MEMORY = "512m"
NANO = 1_000_000_000
# At most two decimals of a CPU; 64 CPUs at most (a runner machine's cores, with room).
CPUS_RANGE = (NANO // 4, 64 * NANO)
# The floor keeps the tmpfs mounts (/work, /tmp, /cap and /dev/shm: 424 MiB, counted by the
# memory cgroup) inside the limit, so a disk fill meets ENOSPC rather than an OOM kill.
MEMORY_RANGE_MIB = (512, 64 * 1024)
_CPUS = re.compile(r"([0-9]{1,2})(?:\.([0-9]{1,2}))?")
_MEMORY = re.compile(r"([0-9]{1,6})([mg])")


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


def parse_cpus(text: str) -> int:
    """CPUs as nano-CPUs: "1", "2", "1.5", "0.25"; 0.25..64."""
    match = _CPUS.fullmatch(text)
    if match is None:
        raise InputRefused(f"--cpus must be a number of CPUs like 2 or 1.5, got {text[:40]!r}")
    whole, frac = match.group(1), (match.group(2) or "").ljust(2, "0")
    nano = int(whole) * NANO + int(frac) * (NANO // 100)
    low, high = CPUS_RANGE
    if not low <= nano <= high:
        raise InputRefused(f"--cpus must be within {low / NANO:g}..{high / NANO:g}, got {text}")
    return nano


def parse_memory(text: str) -> int:
    """Memory in MiB from "512m" or "2g"; 512m..64g."""
    match = _MEMORY.fullmatch(text)
    if match is None:
        raise InputRefused(f"--memory must be like 512m or 2g, got {text[:40]!r}")
    mib = int(match.group(1)) * (1024 if match.group(2) == "g" else 1)
    low, high = MEMORY_RANGE_MIB
    if not low <= mib <= high:
        raise InputRefused(f"--memory must be within {low}m..{high // 1024}g, got {text}")
    return mib


def parse_resources(cpus: str | None, memory: str | None) -> Resources:
    return Resources(
        nano_cpus=parse_cpus(cpus if cpus is not None else DEFAULT_CPUS),
        memory_mib=parse_memory(memory if memory is not None else DEFAULT_MEMORY),
    )
