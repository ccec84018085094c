from __future__ import annotations

import os

from verify_pr.errors import SandboxBlocked
from verify_pr.sandbox.reaper import orphan_of, pid_alive, reap_orphans


class FakeApi:
    def __init__(self, owned: list[tuple[str, str]], fail_list: bool = False) -> None:
        self.owned, self.fail_list = owned, fail_list
        self.removed: list[str] = []

    def list_owned(self) -> list[tuple[str, str]]:
        if self.fail_list:
            raise SandboxBlocked("daemon down")
        return self.owned

    def remove(self, container_id: str) -> None:
        if container_id == "boom":
            raise SandboxBlocked("remove failed")
        self.removed.append(container_id)


def test_only_this_hosts_dead_owners_are_reaped() -> None:
    api = FakeApi(
        [
            ("dead", "host-a:100"),
            ("live", "host-a:200"),
            ("other-host", "host-b:100"),
            ("garbage", "no-colon"),
            ("not-a-pid", "host-a:12x"),
            ("colon-host", "host:a:100"),
        ]
    )
    removed = reap_orphans(api, "host-a", alive=lambda pid: pid == 200)
    assert removed == ["dead"] == api.removed


def test_hostname_with_colons_splits_at_the_last() -> None:
    assert orphan_of("host:a:100", "host:a", alive=lambda pid: False)
    assert not orphan_of("host:a:100", "host", alive=lambda pid: False)


def test_failures_never_stop_the_run() -> None:
    assert reap_orphans(FakeApi([], fail_list=True), "h") == []
    api = FakeApi([("boom", "h:1"), ("ok", "h:2")])
    assert reap_orphans(api, "h", alive=lambda pid: False) == ["ok"]


def test_pid_alive() -> None:
    assert pid_alive(os.getpid())
    assert pid_alive(0) and pid_alive(-5)  # never treated as gone
    assert not pid_alive(2**22 + 12345)  # above pid_max: cannot exist
