"""The report spool: on disk, private, independent readers, and cleaned up when dropped."""

from __future__ import annotations

import gc
import os
import stat
import warnings

from verify_pr.sandbox.spool import ReportSpool


def test_readers_are_independent_and_the_file_is_private() -> None:
    spool = ReportSpool()
    spool.write(b"<testsuite/>" * 1000)
    assert spool.size == 12_000
    with spool.open() as first, spool.open() as second:
        assert first.read(5) == b"<test"
        assert second.read(5) == b"<test"  # its own offset
    assert stat.S_IMODE(os.stat(spool._path).st_mode) == 0o600
    spool.close()
    assert not os.path.exists(spool._path)
    spool.close()  # twice is fine


def test_a_dropped_spool_is_removed_without_an_unclosed_file_warning() -> None:
    spool = ReportSpool()
    spool.write(b"x")
    path = spool._path
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a ResourceWarning would raise here
        del spool
        gc.collect()
    assert not os.path.exists(path)
