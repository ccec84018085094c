"""The container calls the engine makes, as protocols: the Docker adapter implements them, and a
unit test's fake does too (the real daemon stays the proof of every control).
"""

from __future__ import annotations

import socket
from typing import Any, Protocol


class AttachStream(Protocol):
    """The attach connection: the raw socket carries the nonce in and the framed output out."""

    @property
    def raw(self) -> socket.socket: ...

    def close(self) -> None: ...


class ContainerApi(Protocol):
    """One container's lifecycle; every failure leaves as :class:`SandboxBlocked`."""

    def create(self, kwargs: dict[str, Any]) -> tuple[str, list[str]]:
        """Create from ``SandboxPolicy.create_kwargs()``; the id and the daemon's warnings."""
        ...

    def inspect(self, container_id: str) -> dict[str, Any]: ...

    def attach(self, container_id: str) -> AttachStream: ...

    def start(self, container_id: str) -> None: ...

    def wait(self, container_id: str, timeout_s: int) -> int:
        """The container's exit status, waiting at most ``timeout_s``."""
        ...

    def remove(self, container_id: str) -> None:
        """Remove with force; a container already gone is fine."""
        ...


class ReapApi(Protocol):
    """What the reaper needs: this daemon's owned containers, and a forced remove."""

    def list_owned(self) -> list[tuple[str, str]]:
        """(full id, owner label) of every container that carries an owner label."""
        ...

    def remove(self, container_id: str) -> None: ...


class KillApi(Protocol):
    """The watchdog's own connection (the engine's is busy streaming)."""

    def kill(self, container_id: str) -> None:
        """Kill; a container that already exited or is gone is fine."""
        ...

    def close(self) -> None: ...
