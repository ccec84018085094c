import io
import stat
import struct
import warnings
import zipfile
from pathlib import Path

import pytest

from verify_pr.errors import ReportError
from verify_pr.publish.artifact import ArtifactLimits, read_artifact

ALLOWED = frozenset({"result.json", "report.xml"})
SMALL = ArtifactLimits(
    max_archive_bytes=64 * 1024,
    max_total_bytes=3000,
    max_file_bytes=2000,
    max_members=4,
    max_ratio=20,
    ratio_floor_bytes=1024,
)


def build(
    *members: tuple[str | zipfile.ZipInfo, bytes], method: int = zipfile.ZIP_DEFLATED
) -> bytes:
    """A zip with the given members, written as-is (duplicates included)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns on duplicate names
        with zipfile.ZipFile(buffer, "w", compression=method) as archive:
            for name, content in members:
                archive.writestr(name, content)
    return buffer.getvalue()


def member(name: str, mode: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    return info


def refused(data: bytes, match: str, limits: ArtifactLimits = SMALL) -> None:
    with pytest.raises(ReportError, match=match) as info:
        read_artifact(data, allowed_names=ALLOWED, limits=limits)
    assert info.value.diagnostics().startswith("artifact refused")


def test_valid_artifact_returns_bytes_by_name() -> None:
    data = build(("result.json", b'{"ok": true}'), ("report.xml", b"<testsuites/>"))
    files = read_artifact(data, allowed_names=ALLOWED, required_names={"result.json"})
    assert files == {"result.json": b'{"ok": true}', "report.xml": b"<testsuites/>"}


def test_zip_slip_is_refused() -> None:
    refused(build(("../result.json", b"{}")), "traversal")
    refused(build(("a/../../result.json", b"{}")), "traversal")


def test_absolute_and_backslash_paths_are_refused() -> None:
    refused(build(("/etc/result.json", b"{}")), "absolute")
    refused(build(("C:/result.json", b"{}")), "absolute")
    refused(build(("..\\result.json", b"{}")), "non-POSIX")


def test_symlink_member_is_refused() -> None:
    link = member("result.json", stat.S_IFLNK | 0o777)
    refused(build((link, b"/etc/passwd")), "symbolic link")


def test_directory_and_special_members_are_refused() -> None:
    refused(build(("result.json/", b"")), "directory")
    refused(build((member("result.json", stat.S_IFIFO | 0o644), b"")), "special file")


def test_regular_mode_bits_are_accepted() -> None:
    regular = member("result.json", stat.S_IFREG | 0o644)
    assert read_artifact(build((regular, b"{}")), allowed_names=ALLOWED) == {"result.json": b"{}"}


def test_unknown_name_is_refused() -> None:
    refused(build(("result.json", b"{}"), ("node_modules/x.js", b"")), "unexpected member")
    refused(build(("RESULT.JSON", b"{}")), "unexpected member")


def test_duplicate_name_is_refused() -> None:
    refused(build(("result.json", b'{"a": 1}'), ("result.json", b'{"a": 2}')), "duplicate")


def test_oversize_file_is_refused() -> None:
    refused(build(("result.json", b"x" * 2001), method=zipfile.ZIP_STORED), "file cap")


def test_oversize_total_is_refused() -> None:
    data = build(
        ("result.json", b"x" * 1600), ("report.xml", b"y" * 1600), method=zipfile.ZIP_STORED
    )
    refused(data, "total cap")


def test_zip_bomb_ratio_is_refused() -> None:
    bomb = build(("result.json", b"\0" * (8 * 1024 * 1024)))
    assert len(bomb) < 20_000
    refused(bomb, "compression ratio", limits=ArtifactLimits())


def test_declared_size_that_lies_is_refused() -> None:
    data = bytearray(build(("result.json", b"a" * 1500), method=zipfile.ZIP_STORED))
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, 10)  # claim 10 bytes uncompressed
    refused(bytes(data), "declared size|not a valid zip")


def test_encrypted_member_is_refused() -> None:
    data = bytearray(build(("result.json", b"{}")))
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= 0x1  # general purpose flag bit 0: encrypted
    refused(bytes(data), "encrypted")


def test_too_many_members_is_refused() -> None:
    allowed = {f"f{i}" for i in range(10)}
    data = build(*((name, b"") for name in sorted(allowed)))
    with pytest.raises(ReportError, match="members"):
        read_artifact(data, allowed_names=allowed, limits=SMALL)


def test_unsupported_compression_is_refused() -> None:
    refused(build(("result.json", b"{}"), method=zipfile.ZIP_BZIP2), "compression")


def test_garbage_and_oversize_archives_are_refused() -> None:
    refused(b"not a zip at all", "not a valid zip")
    refused(b"\0" * (SMALL.max_archive_bytes + 1), "archive is over")


def test_missing_required_file_is_refused() -> None:
    with pytest.raises(ReportError, match=r"missing result\.json"):
        read_artifact(
            build(("report.xml", b"")), allowed_names=ALLOWED, required_names={"result.json"}
        )


def test_path_source_must_be_a_regular_file(tmp_path: Path) -> None:
    good = tmp_path / "a.zip"
    good.write_bytes(build(("result.json", b"{}")))
    assert read_artifact(good, allowed_names=ALLOWED) == {"result.json": b"{}"}
    link = tmp_path / "link.zip"
    link.symlink_to(good)
    with pytest.raises(ReportError, match="cannot open"):
        read_artifact(link, allowed_names=ALLOWED)
    with pytest.raises(ReportError, match="not a regular file"):
        read_artifact(tmp_path, allowed_names=ALLOWED)


@pytest.mark.parametrize("name", ["", "../x", "/x", "a//b", "a\\b", "./x"])
def test_allow_list_must_be_plain_names(name: str) -> None:
    with pytest.raises(ValueError, match="allow-list"):
        read_artifact(build(), allowed_names={name})
